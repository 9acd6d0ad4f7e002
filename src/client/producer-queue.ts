/**
 * What the producer (producer.ts) keeps for each partition it writes: the batches queued for
 * the next request, whose sends their records belong to, and the request in flight.
 */
import type { RecordBatchBuilder } from "../protocol/record-batch-builder.ts";
import type { RecordMetadata } from "./types.ts";

/** One `send`: its results, filled as its records are acknowledged, and how many are still out. */
export interface SendState {
  results: RecordMetadata[];
  remaining: number;
  failed: boolean;
  resolve(results: RecordMetadata[]): void;
  reject(error: unknown): void;
}

/**
 * Consecutive records of one send in one partition's queue: its messages firstIndex …
 * firstIndex + count − 1, all with `timestamp`. A send to one partition is one run per request,
 * so a record costs no object of its own until its RecordMetadata.
 */
export interface Run {
  send: SendState;
  firstIndex: number;
  count: number;
  timestamp: number;
}

/** A batch closed at batchBytes, waiting for its request; `accounted` is its records' bytes in the buffer. */
export interface ClosedBatch {
  bytes: Uint8Array;
  records: number;
  accounted: number;
  /** Its producer fields and CRC are written (sealBatch). */
  sealed: boolean;
}

export interface PartitionQueue {
  /** `topic` NUL `partition`: this queue's key in the producer's maps. */
  key: string;
  topic: string;
  partition: number;
  /** Batches full to batchBytes, oldest first, then the one being filled. */
  closed: ClosedBatch[];
  open: RecordBatchBuilder | undefined;
  openAccounted: number;
  /** Who each queued record belongs to, in order. */
  runs: Run[];
  /** Records and their counted bytes queued (not yet in a request). */
  records: number;
  bytes: number;
  /** When the oldest queued record came: lingerMs counts from it. */
  firstQueuedAtMs: number;
  /** Records ever enqueued / settled here: flush() waits for a count, not for the queue to stay empty. */
  enqueuedTotal: number;
  settledTotal: number;
  /** Records up to this enqueued count are sent without lingering (a flush asked). */
  urgentUntil: number;
  /** Cancels the pending linger (a timer, or the next turn for a linger that is over). */
  timer: (() => void) | undefined;
  inFlight: Promise<void> | undefined;
  settledWaiters: { target: number; resolve(): void }[];
  /** The commit this queue's next request carries (a transaction's last writes), if any. */
  carriedCommit: CarriedCommit | undefined;
}

/**
 * A transaction's commit carried by its last writes (docs/transactions.md, "The commit carried
 * by the last writes"): one request per partition with records queued, each naming how many
 * carry it; `committed` is the next identity once one answers that the commit was made.
 */
export interface CarriedCommit {
  writes: number;
  committed: { producerId: number; producerEpoch: number } | undefined;
}

/**
 * Whether these queues' records can carry the commit: none of them has a request out (the
 * commit must follow every write of the transaction), and each sends what it holds in one
 * request of at most `requestBytes` (the producer's #drain cuts at that bound).
 */
export function canCarryCommit(queues: readonly PartitionQueue[], requestBytes: number): boolean {
  return (
    queues.length > 0 &&
    queues.every((queue) => {
      const bytes = queue.closed.reduce((sum, batch) => sum + batch.bytes.length, queue.open?.byteLength ?? 0);
      return queue.inFlight === undefined && queue.records > 0 && bytes <= requestBytes;
    })
  );
}

/** An empty queue for one partition. */
export function newPartitionQueue(key: string, topic: string, partition: number): PartitionQueue {
  return {
    key,
    topic,
    partition,
    closed: [],
    open: undefined,
    openAccounted: 0,
    runs: [],
    records: 0,
    bytes: 0,
    firstQueuedAtMs: 0,
    enqueuedTotal: 0,
    settledTotal: 0,
    urgentUntil: 0,
    timer: undefined,
    inFlight: undefined,
    settledWaiters: [],
    carriedCommit: undefined,
  };
}

/** Takes the runs of the first `records` queued records off `runs` (splitting the last one when a request ends inside it). */
export function takeRuns(runs: Run[], records: number): Run[] {
  let whole = 0;
  let left = records;
  while (whole < runs.length && runs[whole]!.count <= left) left -= runs[whole++]!.count;
  const taken = runs.splice(0, whole);
  if (left > 0) {
    const run = runs[0]!;
    taken.push({ ...run, count: left });
    run.firstIndex += left;
    run.count -= left;
  }
  return taken;
}
