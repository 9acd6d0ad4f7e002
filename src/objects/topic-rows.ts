import type { TopicConfigs } from "../topics/topic-configs.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";

/** The controller's topic and partition rows (its migration 1), read and written. */

export function insertPartitionRows(sql: SqlStorage, topicId: string, placements: readonly PartitionPlacement[]): void {
  for (const placement of placements) {
    sql.exec(
      "INSERT INTO partitions (topic_id, partition, leader, replicas, isr, leader_epoch, partition_epoch) VALUES (?, ?, ?, ?, ?, ?, ?)",
      topicId,
      placement.partition,
      placement.leader,
      JSON.stringify(placement.replicas),
      JSON.stringify(placement.isr),
      placement.leaderEpoch,
      placement.partitionEpoch,
    );
  }
}

/** Every topic with its partitions in order, as stored. */
export function loadTopicRows(sql: SqlStorage): TopicMetadata[] {
  const partitionsByTopic = new Map<string, PartitionPlacement[]>();
  for (const row of sql.exec<{ topic_id: string; partition: number; leader: string; replicas: string; isr: string; leader_epoch: number; partition_epoch: number }>(
    "SELECT topic_id, partition, leader, replicas, isr, leader_epoch, partition_epoch FROM partitions ORDER BY topic_id, partition",
  )) {
    const list = partitionsByTopic.get(row.topic_id) ?? [];
    list.push({
      partition: row.partition,
      leader: row.leader,
      replicas: JSON.parse(row.replicas) as string[],
      isr: JSON.parse(row.isr) as string[],
      leaderEpoch: row.leader_epoch,
      partitionEpoch: row.partition_epoch,
    });
    partitionsByTopic.set(row.topic_id, list);
  }
  return sql
    .exec<{ name: string; topic_id: string; replication_factor: number; configs: string }>("SELECT name, topic_id, replication_factor, configs FROM topics")
    .toArray()
    .map((row) => ({
      name: row.name,
      topicId: row.topic_id,
      replicationFactor: row.replication_factor,
      configs: JSON.parse(row.configs) as TopicConfigs,
      partitions: partitionsByTopic.get(row.topic_id) ?? [],
    }));
}
