/**
 * A group's pending transactional offsets in its coordinator's SQLite (issue 28; the rules in
 * src/group/transactional-offsets.ts): one row, the whole state as JSON, written only when a
 * transaction commits offsets or a marker ends some. A group no transaction touches has no row.
 */
import {
  applyGroupMarker,
  dropPendingOffsets,
  emptyTransactionalOffsets,
  stageOffsets,
  type GroupMarker,
  type TransactionalOffset,
  type TransactionalOffsetsState,
} from "../group/transactional-offsets.ts";
import { TributaryError } from "../errors.ts";

export const groupTransactionalOffsetsMigration = `CREATE TABLE transactional_offsets (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  state TEXT NOT NULL
)`;

export class GroupTransactionalOffsets {
  readonly #sql: SqlStorage;
  #state: TransactionalOffsetsState;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    const row = sql.exec<{ state: string }>("SELECT state FROM transactional_offsets WHERE id = 1").toArray()[0];
    this.#state = row === undefined ? emptyTransactionalOffsets() : (JSON.parse(row.state) as TransactionalOffsetsState);
  }

  stage(request: { producerId: number; producerEpoch: number; offsets: readonly TransactionalOffset[] }): void {
    this.#save(stageOffsets(this.#state, request));
  }

  /** The marker: answers the offsets it commits (the caller writes them as committed in the same turn). */
  mark(marker: GroupMarker): TransactionalOffset[] {
    const { state, commit } = applyGroupMarker(this.#state, marker);
    this.#save(state);
    return commit;
  }

  /** OffsetDelete: what transactions hold of these partitions goes with their committed offsets. */
  drop(partitions: readonly { topic: string; partition: number }[]): void {
    this.#save(dropPendingOffsets(this.#state, partitions));
  }

  /**
   * Kafka's require_stable: refused while a transaction holds offsets of any partition (the
   * offsets route answers the whole group, so any pending one makes the answer unstable).
   */
  requireStable(): void {
    const unstable = this.#state.pending.flatMap((entry) => entry.offsets);
    if (unstable.length > 0) {
      throw new TributaryError("UNSTABLE_OFFSET_COMMIT", "a transaction holds uncommitted offsets of the group; retry once it ends", {
        partitions: unstable.map(({ topic, partition }) => ({ topic, partition })),
      });
    }
  }

  /** Whether any transaction holds offsets: such a group exists even before its first plain commit. */
  get holdsAny(): boolean {
    return this.#state.pending.some((entry) => entry.offsets.length > 0);
  }

  #save(state: TransactionalOffsetsState): void {
    if (JSON.stringify(state) === JSON.stringify(this.#state)) return;
    this.#state = state;
    this.#sql.exec("INSERT INTO transactional_offsets (id, state) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state", JSON.stringify(state));
  }
}
