import { TributaryError, unwrap } from "../errors.ts";
import { deleteFanOutConcurrencyMax } from "../limits.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";
import { groupStub, replicaStub } from "../contracts/stubs.ts";

/** Retry delay for a topic deletion whose partitions could not all be reached. */
export const deletionRetryMs = 1_000;

/**
 * The controller's deletion of a deleted topic's data: every replica's log (each leaves a
 * tombstone), then the topic's committed offsets in every indexed group, in fan-outs of at most
 * `deleteFanOutConcurrencyMax` calls. A deletion is queued in the controller's SQLite
 * (`pending_deletions`, `pending_group_offset_deletions`) in the turn that unregisters the
 * topic, and stays there until both are done; the controller's alarm finishes what a request
 * could not. Every step is idempotent, so a retry asks every replica and group again.
 */
export class TopicDeletions {
  readonly #env: Env;
  readonly #sql: SqlStorage;
  readonly #setAlarmBefore: (atMs: number) => Promise<void>;

  constructor(env: Env, sql: SqlStorage, setAlarmBefore: (atMs: number) => Promise<void>) {
    this.#env = env;
    this.#sql = sql;
    this.#setAlarmBefore = setAlarmBefore;
  }

  /** Queues the deletion of a topic's data, in the turn that removes its rows. */
  queue(topic: TopicMetadata): void {
    this.#sql.exec("INSERT INTO pending_deletions (topic_id, partitions) VALUES (?, ?)", topic.topicId, JSON.stringify(topic.partitions));
    this.#sql.exec("INSERT INTO pending_group_offset_deletions (topic_id, topic) VALUES (?, ?)", topic.topicId, topic.name);
  }

  /** Deletes unregistered topics' data; should a partition be unreachable, the alarm finishes it. */
  async finish(topics: readonly TopicMetadata[]): Promise<void> {
    for (const topic of topics) {
      try {
        await this.#finishDeletion(topic.topicId, topic.partitions);
      } catch {
        await this.#setAlarmBefore(Date.now() + deletionRetryMs);
        throw new TributaryError("REQUEST_TIMED_OUT", `topic ${topic.name} is deleted; removing its data continues in the background`);
      }
    }
  }

  /** The alarm's part: tries every pending deletion; answers whether each one finished. */
  async finishPending(): Promise<boolean> {
    const pending = this.#sql.exec<{ topic_id: string; partitions: string }>("SELECT topic_id, partitions FROM pending_deletions").toArray();
    let finished = true;
    for (const row of pending) {
      try {
        await this.#finishDeletion(row.topic_id, JSON.parse(row.partitions) as PartitionPlacement[]);
      } catch {
        finished = false;
      }
    }
    return finished;
  }

  async #finishDeletion(topicId: string, partitions: readonly PartitionPlacement[]): Promise<void> {
    const replicas = partitions.flatMap((placement) => placement.replicas.map((region) => ({ partition: placement.partition, region })));
    for (let start = 0; start < replicas.length; start += deleteFanOutConcurrencyMax) {
      const slice = replicas.slice(start, start + deleteFanOutConcurrencyMax);
      await Promise.all(
        slice.map(async ({ partition, region }) =>
          unwrap(await replicaStub(this.#env, topicId, partition, region).deleteTopicData({ topicId, partition, region })),
        ),
      );
    }
    await this.#deleteGroupOffsets(topicId);
    this.#sql.exec("DELETE FROM pending_deletions WHERE topic_id = ?", topicId);
  }

  /**
   * Deletes a deleted topic's committed offsets in every indexed group, as many groups at a
   * time as partitions above. Idempotent: a retry by the alarm asks every group again.
   */
  async #deleteGroupOffsets(topicId: string): Promise<void> {
    const pending = this.#sql
      .exec<{ topic: string }>("SELECT topic FROM pending_group_offset_deletions WHERE topic_id = ?", topicId)
      .toArray()[0];
    if (!pending) return;
    const groups = this.#sql.exec<{ name: string }>("SELECT name FROM groups").toArray().map((row) => row.name);
    for (let start = 0; start < groups.length; start += deleteFanOutConcurrencyMax) {
      const slice = groups.slice(start, start + deleteFanOutConcurrencyMax);
      await Promise.all(slice.map(async (group) => unwrap(await groupStub(this.#env, group).deleteTopicOffsets(group, topicId, pending.topic))));
    }
    this.#sql.exec("DELETE FROM pending_group_offset_deletions WHERE topic_id = ?", topicId);
  }
}
