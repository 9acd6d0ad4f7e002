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
}

export const groupOffsetsMigration = `CREATE TABLE offsets (
  topic_id TEXT NOT NULL,
  topic TEXT NOT NULL,
  partition INTEGER NOT NULL,
  committed_offset INTEGER NOT NULL,
  committed_at INTEGER NOT NULL,
  PRIMARY KEY (topic_id, partition)
)`;

export class GroupOffsetsStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * Writes offsets. A row whose offset did not move is left alone: a polling member commits
   * every partition it holds on every poll, and an unchanged offset is not worth a row write
   * (ARCHITECTURE.md decision 11).
   */
  write(offsets: readonly CommittedOffset[], nowMs: number): void {
    for (const { topicId, topic, partition, offset } of offsets) {
      this.#sql.exec(
        `INSERT INTO offsets (topic_id, topic, partition, committed_offset, committed_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (topic_id, partition) DO UPDATE SET committed_offset = excluded.committed_offset,
           topic = excluded.topic, committed_at = excluded.committed_at
         WHERE offsets.committed_offset <> excluded.committed_offset OR offsets.topic <> excluded.topic`,
        topicId,
        topic,
        partition,
        offset,
        nowMs,
      );
    }
  }

  /** Committed offset by partition, for one topic. */
  committed(topicId: string): Map<number, number> {
    const offsets = new Map<number, number>();
    for (const row of this.#sql.exec<{ partition: number; committed_offset: number }>(
      "SELECT partition, committed_offset FROM offsets WHERE topic_id = ?",
      topicId,
    )) {
      offsets.set(row.partition, row.committed_offset);
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

  deleteTopic(topicId: string): void {
    this.#sql.exec("DELETE FROM offsets WHERE topic_id = ?", topicId);
  }

  deleteAll(): void {
    this.#sql.exec("DELETE FROM offsets");
  }
}
