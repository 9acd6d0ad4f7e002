/**
 * A group's committed offsets in its coordinator's SQLite (ARCHITECTURE.md decision 7). Keyed
 * by topicId, not by name: a topic deleted and created again under its name gets a new
 * topicId, so it never meets the old topic's offsets. The name is kept for listing.
 */

export interface CommittedOffset {
  topicId: string;
  topic: string;
  partition: number;
  offset: number;
  /** Kafka's commit metadata string; "" when the commit carried none. */
  metadata: string;
  /** The committed leader epoch (KIP-320); −1 when the commit carried none. */
  leaderEpoch: number;
}

/** What is committed for one partition. */
export interface Committed {
  offset: number;
  metadata: string;
  /** −1: none. */
  leaderEpoch: number;
}

export const groupOffsetsMigration = `CREATE TABLE offsets (
  topic_id TEXT NOT NULL,
  topic TEXT NOT NULL,
  partition INTEGER NOT NULL,
  committed_offset INTEGER NOT NULL,
  committed_at INTEGER NOT NULL,
  PRIMARY KEY (topic_id, partition)
)`;

/** Migration 2 (issue 35): each commit's metadata string, Kafka's committedMetadata; "" for the rows before it. */
export const groupOffsetsMetadataMigration = `ALTER TABLE offsets ADD COLUMN metadata TEXT NOT NULL DEFAULT ''`;

/** Migration 5 (issue 29): each commit's leader epoch, Kafka's committedLeaderEpoch; −1 (none) for the rows before it. */
export const groupOffsetsLeaderEpochMigration = `ALTER TABLE offsets ADD COLUMN leader_epoch INTEGER NOT NULL DEFAULT -1`;

export class GroupOffsetsStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * Writes offsets. A row whose offset and metadata did not move is left alone: a polling
   * member commits every partition it holds on every poll, and an unchanged offset is not worth
   * a row write (ARCHITECTURE.md decision 11).
   */
  write(offsets: readonly CommittedOffset[], nowMs: number): void {
    for (const { topicId, topic, partition, offset, metadata, leaderEpoch } of offsets) {
      this.#sql.exec(
        `INSERT INTO offsets (topic_id, topic, partition, committed_offset, committed_at, metadata, leader_epoch) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (topic_id, partition) DO UPDATE SET committed_offset = excluded.committed_offset,
           topic = excluded.topic, committed_at = excluded.committed_at, metadata = excluded.metadata, leader_epoch = excluded.leader_epoch
         WHERE offsets.committed_offset <> excluded.committed_offset OR offsets.topic <> excluded.topic
           OR offsets.metadata <> excluded.metadata OR offsets.leader_epoch <> excluded.leader_epoch`,
        topicId,
        topic,
        partition,
        offset,
        nowMs,
        metadata,
        leaderEpoch,
      );
    }
  }

  /** What is committed by partition, for one topic. */
  committed(topicId: string): Map<number, Committed> {
    const offsets = new Map<number, Committed>();
    for (const row of this.#sql.exec<{ partition: number; committed_offset: number; metadata: string; leader_epoch: number }>(
      "SELECT partition, committed_offset, metadata, leader_epoch FROM offsets WHERE topic_id = ?",
      topicId,
    )) {
      offsets.set(row.partition, { offset: row.committed_offset, metadata: row.metadata, leaderEpoch: row.leader_epoch });
    }
    return offsets;
  }

  /** The topics with commits: name and the topicId they were committed under. */
  topics(): { topic: string; topicId: string }[] {
    return this.#sql
      .exec<{ topic: string; topic_id: string }>("SELECT DISTINCT topic, topic_id FROM offsets")
      .toArray()
      .map((row) => ({ topic: row.topic, topicId: row.topic_id }));
  }

  /** OffsetDelete: these partitions' committed offsets go. */
  deletePartitions(partitions: readonly { topicId: string; partition: number }[]): void {
    for (const { topicId, partition } of partitions) this.#sql.exec("DELETE FROM offsets WHERE topic_id = ? AND partition = ?", topicId, partition);
  }

  deleteTopic(topicId: string): void {
    this.#sql.exec("DELETE FROM offsets WHERE topic_id = ?", topicId);
  }

  deleteAll(): void {
    this.#sql.exec("DELETE FROM offsets");
  }
}
