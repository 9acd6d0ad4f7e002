import { TributaryError } from "../errors.ts";
import { producerRunsRemembered } from "../limits.ts";
import type { BatchHeader } from "../protocol/record-batch.ts";
import { incrementSequence, sequenceDistance, sequenceModulus } from "../protocol/sequences.ts";

/**
 * The idempotent producer's partition half (API.md, Produce; Kafka's ProducerStateManager,
 * without transactions), pure. A producer stamps each batch with its id, its epoch and the
 * sequence of the batch's first record; sequences count the producer's records in the
 * partition from 0 and wrap to 0 after 2^31 − 1. Per producer the partition remembers its
 * epoch, the first sequence it took in that epoch, and its last runs: consecutive records
 * (consecutive sequences at consecutive offsets), so a sequence in a run maps to exactly one
 * offset. The sequences from the epoch's first to the last run's last are the ones it knows it
 * wrote. Rules for an append:
 *
 *   unknown producer ───────────────────────────────► append, any sequence (Kafka, KIP-360)
 *   older epoch ────────────────────────────────────► 409 INVALID_PRODUCER_EPOCH
 *   newer epoch: first sequence 0 ──────────────────► append; the state starts over
 *                otherwise ─────────────────────────► 409 OUT_OF_ORDER_SEQUENCE_NUMBER
 *   same epoch:  first sequence = last + 1 ─────────► append
 *                every sequence inside one run ─────► duplicate: the original offsets, nothing written
 *                every sequence known written ──────► 409 DUPLICATE_SEQUENCE_NUMBER
 *                otherwise (a gap, or sequences ────► 409 OUT_OF_ORDER_SEQUENCE_NUMBER
 *                before the epoch's first)
 *
 * Why the epoch's first sequence: an unknown producer's first append may start anywhere, so
 * when a producer's later request overtakes its first one (two requests in flight, delivered
 * out of order), the later one is taken first. The first request's records were never
 * written; answering them DUPLICATE_SEQUENCE_NUMBER, which Kafka's clients count as written,
 * would lose them without a word. They are OUT_OF_ORDER_SEQUENCE_NUMBER instead: the producer
 * learns that they are not in the log (issue 34).
 *
 * A leader checks and records; a follower records the batches it replicates with the same
 * function, so both hold the same state and a new leader deduplicates too.
 */

/**
 * A run is cut before it covers half the sequence space, so "inside a run" stays unambiguous;
 * so is the span of sequences known written (a producer past it has wrapped: only the last half
 * of the space behind its next sequence counts as written).
 */
const runLengthMax = sequenceModulus / 2;

/** Consecutive records of one producer: sequences first…last (with wrap) at offsets base…last. */
export interface SequenceRun {
  firstSequence: number;
  lastSequence: number;
  baseOffset: number;
  lastOffset: number;
}

/** What a partition remembers of one producer. */
export interface ProducerEntry {
  producerId: number;
  producerEpoch: number;
  /**
   * The first sequence this partition took of the producer in this epoch (kept within half the
   * sequence space behind the last): every sequence from it to the last run's last was written.
   */
  firstSequence: number;
  /** Oldest first, at most producerRunsRemembered, never empty. */
  runs: SequenceRun[];
  /** When the producer last appended here (ms): idle time counts from it. */
  lastActivityMs: number;
}

/** The producer fields of one append's batches, checked: one producer, consecutive sequences. */
export interface ProducerAppend {
  producerId: number;
  producerEpoch: number;
  firstSequence: number;
  recordCount: number;
}

export type ProducerFields = Pick<BatchHeader, "producerId" | "producerEpoch" | "baseSequence" | "recordCount">;

export type AppendDecision = { kind: "append" } | { kind: "duplicate"; baseOffset: number; lastOffset: number };

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}

/**
 * The producer of one append (a request's batches, written atomically), or undefined when the
 * batches carry no producer id (-1). Every batch must carry the same producer id and epoch,
 * with sequences continuing from batch to batch; else 400 INVALID_REQUEST.
 */
export function producerAppendOf(headers: readonly ProducerFields[]): ProducerAppend | undefined {
  const first = headers[0];
  if (!first) return undefined;
  if (headers.every((header) => header.producerId === -1)) return undefined;
  let next = first.baseSequence;
  let recordCount = 0;
  headers.forEach((header, index) => {
    const where = `batch ${index}`;
    if (header.producerId < 0) throw invalid(`${where}: producerId ${header.producerId}; the batches of one request all carry the same producer id, or none`);
    if (header.producerId !== first.producerId || header.producerEpoch !== first.producerEpoch) {
      throw invalid(`${where}: the batches of one request carry one producer id and epoch`);
    }
    if (header.producerEpoch < 0) throw invalid(`${where}: producerEpoch ${header.producerEpoch}; an idempotent batch has an epoch from POST /v1/producers`);
    if (header.baseSequence < 0) throw invalid(`${where}: baseSequence ${header.baseSequence}; an idempotent batch has a sequence`);
    if (header.baseSequence !== next) throw invalid(`${where}: baseSequence ${header.baseSequence}; the previous batch ends before ${next}`);
    next = incrementSequence(next, header.recordCount);
    recordCount += header.recordCount;
  });
  if (recordCount >= runLengthMax) throw invalid(`one request holds at most ${runLengthMax - 1} records of an idempotent producer`);
  return { producerId: first.producerId, producerEpoch: first.producerEpoch, firstSequence: first.baseSequence, recordCount };
}

/**
 * The epoch rule of transactions (docs/transactions.md; KIP-890 part 2): every transaction end
 * bumps the producer's epoch, and a transactional or idempotent write (or a marker) with an
 * epoch below the highest this partition has seen of its producer id is refused, so a write
 * delayed past its transaction's end never lands in the next one.
 */
export function checkEpochNotFenced(highestSeen: number | undefined, producerId: number, producerEpoch: number): void {
  if (highestSeen !== undefined && producerEpoch < highestSeen) {
    throw new TributaryError("INVALID_PRODUCER_EPOCH", `producer ${producerId} has epoch ${highestSeen} here; epoch ${producerEpoch} is fenced`, {
      producerId,
      producerEpoch: highestSeen,
    });
  }
}

/**
 * Whether an append goes ahead, or repeats records already written (their offsets), by the
 * rules above; throws the 409s, with what the producer needs to know in `data`.
 */
export function checkProducerAppend(entry: ProducerEntry | undefined, append: ProducerAppend): AppendDecision {
  if (!entry) return { kind: "append" };
  const { producerId } = append;
  if (append.producerEpoch < entry.producerEpoch) {
    throw new TributaryError(
      "INVALID_PRODUCER_EPOCH",
      `producer ${producerId} has epoch ${entry.producerEpoch} here; epoch ${append.producerEpoch} is fenced`,
      { producerId, producerEpoch: entry.producerEpoch },
    );
  }
  if (append.producerEpoch > entry.producerEpoch) {
    if (append.firstSequence === 0) return { kind: "append" };
    throw new TributaryError(
      "OUT_OF_ORDER_SEQUENCE_NUMBER",
      `producer ${producerId}'s epoch ${append.producerEpoch} starts at sequence 0, not ${append.firstSequence}`,
      { producerId, producerEpoch: append.producerEpoch, expectedSequence: 0, sequence: append.firstSequence },
    );
  }
  const lastSequence = entry.runs.at(-1)!.lastSequence;
  const expectedSequence = incrementSequence(lastSequence, 1);
  if (append.firstSequence === expectedSequence) return { kind: "append" };
  for (const run of entry.runs) {
    const start = sequenceDistance(run.firstSequence, append.firstSequence);
    if (start + append.recordCount <= run.lastOffset - run.baseOffset + 1) {
      const baseOffset = run.baseOffset + start;
      return { kind: "duplicate", baseOffset, lastOffset: baseOffset + append.recordCount - 1 };
    }
  }
  const data = { producerId, producerEpoch: entry.producerEpoch, expectedSequence, lastSequence, sequence: append.firstSequence };
  const known = sequenceDistance(entry.firstSequence, lastSequence);
  const appendLast = incrementSequence(append.firstSequence, append.recordCount - 1);
  const startsKnown = sequenceDistance(entry.firstSequence, append.firstSequence) <= known;
  if (startsKnown && sequenceDistance(entry.firstSequence, appendLast) <= known) {
    throw new TributaryError(
      "DUPLICATE_SEQUENCE_NUMBER",
      `producer ${producerId}: sequences ${append.firstSequence}–${appendLast} are already written (the last is ${lastSequence}) and are not one of its last requests`,
      data,
    );
  }
  const why = startsKnown
    ? `sequences ${append.firstSequence}–${appendLast} run past the last written (${lastSequence}) without continuing it`
    : sequenceDistance(expectedSequence, append.firstSequence) < sequenceModulus / 2
      ? `sequence ${append.firstSequence} leaves a gap; the next sequence is ${expectedSequence}`
      : `sequence ${append.firstSequence} comes before ${entry.firstSequence}, the first this partition holds of epoch ${entry.producerEpoch}: it holds none of those records`;
  throw new TributaryError("OUT_OF_ORDER_SEQUENCE_NUMBER", `producer ${producerId}: ${why}`, { ...data, firstSequence: entry.firstSequence });
}

/**
 * The state after one stored batch of the producer at `baseOffset` (leader and follower
 * alike). A batch that continues the last run (next offset, next sequence) extends it;
 * another epoch than the remembered one starts the state over: the log is the truth.
 */
export function recordProducerBatch(
  entry: ProducerEntry | undefined,
  batch: ProducerFields & { baseOffset: number },
  activityMs: number,
): ProducerEntry {
  const run: SequenceRun = {
    firstSequence: batch.baseSequence,
    lastSequence: incrementSequence(batch.baseSequence, batch.recordCount - 1),
    baseOffset: batch.baseOffset,
    lastOffset: batch.baseOffset + batch.recordCount - 1,
  };
  if (!entry || entry.producerEpoch !== batch.producerEpoch) {
    return { producerId: batch.producerId, producerEpoch: batch.producerEpoch, firstSequence: run.firstSequence, runs: [run], lastActivityMs: activityMs };
  }
  const previous = entry.runs.at(-1)!;
  const continues =
    previous.lastOffset + 1 === run.baseOffset &&
    incrementSequence(previous.lastSequence, 1) === run.firstSequence &&
    run.lastOffset - previous.baseOffset + 1 < runLengthMax;
  const runs = continues
    ? [...entry.runs.slice(0, -1), { ...previous, lastSequence: run.lastSequence, lastOffset: run.lastOffset }]
    : [...entry.runs, run].slice(-producerRunsRemembered);
  // Known written: from the epoch's first sequence, or the last half of the space once it wrapped.
  const firstSequence = sequenceDistance(entry.firstSequence, run.lastSequence) < runLengthMax ? entry.firstSequence : incrementSequence(run.lastSequence, sequenceModulus - runLengthMax + 1);
  return { ...entry, firstSequence, runs, lastActivityMs: Math.max(entry.lastActivityMs, activityMs) };
}

/**
 * The state once the log is truncated at `offset` (KIP-101): runs cut there; undefined when
 * nothing of the producer is left, and it is forgotten (its next append is accepted at any
 * sequence, as an unknown producer's).
 */
export function truncateProducerEntry(entry: ProducerEntry, offset: number): ProducerEntry | undefined {
  const runs: SequenceRun[] = [];
  for (const run of entry.runs) {
    if (run.baseOffset >= offset) break;
    if (run.lastOffset < offset) {
      runs.push(run);
    } else {
      const kept = offset - run.baseOffset;
      runs.push({ ...run, lastOffset: offset - 1, lastSequence: incrementSequence(run.firstSequence, kept - 1) });
    }
  }
  return runs.length === 0 ? undefined : { ...entry, runs };
}
