import { TributaryError } from "../errors.ts";
import { checkProducerAppend, producerAppendOf } from "../log/producer-state.ts";
import { readBatchHeader } from "../protocol/record-batch.ts";
import type { StreamAppendCondition } from "../protocol/stream-records.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";

/**
 * A Durable Streams stream's state beside its log (docs/durable-streams.md): whether it is
 * closed and the last `Stream-Seq` it took. One row, written in the same synchronous turn as
 * the append it follows, so the row and the log commit together. A stream's topic has one
 * replica (its leader holds this row); the closing record in the log says the same to readers.
 */
export const streamStateMigration = `CREATE TABLE stream_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  closed INTEGER NOT NULL,
  last_seq TEXT
)`;

interface StreamState {
  closed: boolean;
  lastSeq: string | undefined;
}

export class StreamStateStore {
  readonly #sql: SqlStorage;
  #state: StreamState | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get(): StreamState {
    if (this.#state === undefined) {
      const row = this.#sql.exec<{ closed: number; last_seq: string | null }>("SELECT closed, last_seq FROM stream_state WHERE id = 1").toArray()[0];
      this.#state = { closed: row?.closed === 1, lastSeq: row?.last_seq ?? undefined };
    }
    return this.#state;
  }

  set(state: StreamState): void {
    this.#sql.exec(
      "INSERT INTO stream_state (id, closed, last_seq) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET closed = excluded.closed, last_seq = excluded.last_seq",
      state.closed ? 1 : 0,
      state.lastSeq ?? null,
    );
    this.#state = state;
  }
}

/**
 * Appends one protocol append as the leader, after the stream's checks, in this order: an
 * idempotent producer's retry is a duplicate whatever came after it (`append` answers it with
 * the original offsets); a closed stream takes nothing more (a second close without data
 * succeeds, writing nothing); a `Stream-Seq` must be above the last one. Then the append, and
 * the state it leaves, in the same turn.
 */
export function appendToStream(
  node: ReplicaNode,
  batches: readonly Uint8Array[],
  condition: StreamAppendCondition,
  streams: StreamStateStore,
  append: () => AppendAnswer,
): AppendAnswer {
  const producer = producerAppendOf(batches.map((batch) => readBatchHeader(batch)));
  if (producer && checkProducerAppend(node.log.producer(producer.producerId), producer).kind === "duplicate") {
    return withProducer(node, producer.producerId, { ...append(), streamClosed: streams.get().closed });
  }
  const state = streams.get();
  if (state.closed) {
    if (condition.closeOnly) {
      const end = node.log.logEndOffset;
      return { baseOffset: end, lastOffset: end - 1, duplicate: true, streamClosed: true };
    }
    throw new TributaryError("STREAM_CLOSED", "the stream is closed: nothing more can be appended", { nextOffset: node.log.logEndOffset });
  }
  if (condition.seq !== undefined && state.lastSeq !== undefined && condition.seq <= state.lastSeq) {
    throw new TributaryError("STREAM_SEQUENCE_CONFLICT", `Stream-Seq ${JSON.stringify(condition.seq)} is not above the last one, ${JSON.stringify(state.lastSeq)}`);
  }
  const answer = append();
  if (!answer.duplicate) streams.set({ closed: condition.closes, lastSeq: condition.seq ?? state.lastSeq });
  const closed = { ...answer, streamClosed: condition.closes };
  return producer ? withProducer(node, producer.producerId, closed) : closed;
}

function withProducer(node: ReplicaNode, producerId: number, answer: AppendAnswer): AppendAnswer {
  const lastSequence = node.log.producer(producerId)?.runs.at(-1)?.lastSequence;
  return lastSequence === undefined ? answer : { ...answer, producerLastSequence: lastSequence };
}
