/**
 * One partition's writes for a run of consecutive Produce requests of one connection, in
 * their order. Requests of a connection take effect in the order they were sent (connection.ts),
 * so when a producer keeps several requests in flight, those read while the one before was
 * written wait, and are then written together: their record batches for the partition go in
 * one binary produce (one atomic append), as the partition's group commit does for concurrent
 * appends. Each request gets its own records' offsets back.
 *
 *   request 1: [b1]          ─► POST b1
 *   request 2: [b2] ┐ waited
 *   request 3: [b3] ┘        ─► POST b2 b3   (offsets split by each request's record count)
 *
 * Only batches the partition would take as one append are put together: none of an
 * idempotent producer (producer id −1), or one producer and epoch whose sequences continue
 * from request to request; and at most produceRequestBytesMax in one POST. When such a write
 * is refused for what it holds (400, 409, 413: a bad batch, a sequence the partition does not
 * expect), nothing was written, and each request's batches are sent again on their own, in
 * order, so that each request gets its own answer. Any other failure (unreachable, not enough
 * replicas, a quota, a timeout) is every request's answer: the client retries each, and an
 * idempotent producer's retries are answered from the partition's producer state.
 */
import { TributaryError } from "../../errors.ts";
import { produceRequestBytesMax } from "../../limits.ts";
import { incrementSequence } from "../../protocol/sequences.ts";
import { concatBytes } from "../../protocol/bytes.ts";
import { splitBatches } from "../../protocol/record-batch.ts";

/** What a request's batches for one partition say of where they belong. */
export interface PartOutline {
  /** −1: no idempotent producer. */
  producerId: number;
  producerEpoch: number;
  firstSequence: number;
  /** The sequence after the last record. */
  nextSequence: number;
  /** How many offsets the batches take (each batch's last offset delta + 1). */
  offsets: number;
}

/** One request's record batches for the partition. */
export interface PartitionPart {
  records: Uint8Array;
  /** Undefined when the batches' headers do not read: the part is written alone, and the partition says why. */
  outline: PartOutline | undefined;
}

export type PartOutcome = { ok: true; baseOffset: number; timestamp: number } | { ok: false; error: unknown };

/** Writes `records` (one or more whole batches) to the partition: its first offset and append time (−1 when not answered). */
export type PartitionPost = (records: Uint8Array) => Promise<{ baseOffset: number; timestamp: number }>;

/** The outline of a part's batches, undefined when they do not read (or mix producers). */
export function outlineOf(records: Uint8Array): PartOutline | undefined {
  let outline: PartOutline | undefined;
  try {
    for (const { header } of splitBatches(records)) {
      const offsets = header.lastOffsetDelta + 1;
      if (outline === undefined) {
        const nextSequence = header.producerId < 0 ? -1 : incrementSequence(header.baseSequence, header.recordCount);
        outline = { producerId: header.producerId, producerEpoch: header.producerEpoch, firstSequence: header.baseSequence, nextSequence, offsets };
        continue;
      }
      if (header.producerId !== outline.producerId || header.producerEpoch !== outline.producerEpoch) return undefined;
      if (header.producerId >= 0) {
        if (header.baseSequence !== outline.nextSequence) return undefined;
        outline.nextSequence = incrementSequence(header.baseSequence, header.recordCount);
      }
      outline.offsets += offsets;
    }
  } catch {
    return undefined;
  }
  return outline;
}

/** Whether `next` may be appended in one write right after `previous`. */
function continues(previous: PartOutline | undefined, next: PartOutline | undefined): boolean {
  if (previous === undefined || next === undefined) return false;
  if (previous.producerId < 0 || next.producerId < 0) return previous.producerId < 0 && next.producerId < 0;
  return previous.producerId === next.producerId && previous.producerEpoch === next.producerEpoch && next.firstSequence === previous.nextSequence;
}

/** Consecutive parts that go in one write: each continuing the one before, within the request size bound. */
export function writeGroups(parts: readonly PartitionPart[]): PartitionPart[][] {
  const groups: PartitionPart[][] = [];
  let bytes = 0;
  for (const part of parts) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    if (group !== undefined && last !== undefined && continues(last.outline, part.outline) && bytes + part.records.byteLength <= produceRequestBytesMax) {
      group.push(part);
      bytes += part.records.byteLength;
    } else {
      groups.push([part]);
      bytes = part.records.byteLength;
    }
  }
  return groups;
}

/** A refusal of what the write held, with nothing written: worth sending each request's batches alone. */
function refusedForContent(error: unknown): boolean {
  return error instanceof TributaryError && (error.status === 400 || error.status === 409 || error.status === 413);
}

/** Writes every part, in order, each group of parts in one POST; one outcome per part. */
export async function writeParts(parts: readonly PartitionPart[], post: PartitionPost): Promise<PartOutcome[]> {
  const outcomes: PartOutcome[] = [];
  for (const group of writeGroups(parts)) {
    if (group.length === 1) {
      outcomes.push(await writeOne(group[0]!, post));
      continue;
    }
    try {
      const written = await post(concatBytes(group.map((part) => part.records)));
      let baseOffset = written.baseOffset;
      for (const part of group) {
        outcomes.push({ ok: true, baseOffset, timestamp: written.timestamp });
        if (baseOffset >= 0) baseOffset += part.outline!.offsets;
      }
    } catch (error) {
      if (!refusedForContent(error)) {
        for (const _ of group) outcomes.push({ ok: false, error });
        continue;
      }
      for (const part of group) outcomes.push(await writeOne(part, post));
    }
  }
  return outcomes;
}

async function writeOne(part: PartitionPart, post: PartitionPost): Promise<PartOutcome> {
  try {
    return { ok: true, ...(await post(part.records)) };
  } catch (error) {
    return { ok: false, error };
  }
}
