/**
 * A Fetch's byte bounds, as Kafka's broker applies them (KIP-74): partitions in the order the
 * request names them, each given at most its `partition_max_bytes` and what is left of the
 * request's `max_bytes`, in whole record batches; the first batch of the first partition with
 * data comes whole even when it is larger (so a consumer always makes progress), and a batch that
 * does not fit is left for the next Fetch. The gateway reads partitions in parallel (each up to
 * its own bound), then cuts the answers here, in request order, without copying: a partition's
 * records are the pieces its read delivered (upstream-read.ts), cut at a batch boundary.
 *
 * A stored batch starts with its base offset (int64) and its length after the length field
 * (int32): enough to walk from batch to batch.
 */

const batchLengthAt = 8;
/** Base offset and length: what the walk reads of each batch. */
const walkedHeaderBytes = 12;

/** `count` bytes from byte `at` of the pieces taken as one (the caller knows they are there). */
function bytesAt(pieces: readonly Uint8Array[], at: number, count: number): Uint8Array {
  const out = new Uint8Array(count);
  let skipped = 0;
  let written = 0;
  for (const piece of pieces) {
    if (written === count) break;
    const end = skipped + piece.byteLength;
    if (end > at + written) {
      const from = at + written - skipped;
      const take = Math.min(piece.byteLength - from, count - written);
      out.set(piece.subarray(from, from + take), written);
      written += take;
    }
    skipped = end;
  }
  return out;
}

/** The byte offsets at which the whole batches of `pieces` (`bytes` long in all) end, in order. */
export function batchEnds(pieces: readonly Uint8Array[], bytes: number): number[] {
  const ends: number[] = [];
  for (let at = 0; at + walkedHeaderBytes <= bytes; ) {
    const header = bytesAt(pieces, at, walkedHeaderBytes);
    const end = at + walkedHeaderBytes + new DataView(header.buffer).getInt32(batchLengthAt);
    if (end > bytes || end <= at) break;
    ends.push(end);
    at = end;
  }
  return ends;
}

/** The base offset of the batch that starts at byte `at`. */
export function baseOffsetAt(pieces: readonly Uint8Array[], at: number): number {
  return Number(new DataView(bytesAt(pieces, at, 8).buffer).getBigInt64(0));
}

/** The first `bytes` of the pieces, as views of them (no copy). */
export function firstBytes(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] {
  const kept: Uint8Array[] = [];
  let left = bytes;
  for (const piece of pieces) {
    if (left <= 0) break;
    kept.push(piece.byteLength <= left ? piece : piece.subarray(0, left));
    left -= piece.byteLength;
  }
  return kept;
}

/** The pieces after their first `bytes`, as views of them (no copy). */
export function piecesAfter(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] {
  const after: Uint8Array[] = [];
  let skip = bytes;
  for (const piece of pieces) {
    if (skip >= piece.byteLength) skip -= piece.byteLength;
    else {
      after.push(skip === 0 ? piece : piece.subarray(skip));
      skip = 0;
    }
  }
  return after;
}

/**
 * Of `pieces` (`bytes` long), the most bytes that are whole batches within `limit` (`kept`, 0
 * when not even the first fits) and where the first batch ends (`first`). Bytes that do not
 * walk as whole batches to their end are not cut: they count as one batch, as they came.
 */
export function wholeBatchesWithin(pieces: readonly Uint8Array[], bytes: number, limit: number): { kept: number; first: number } {
  const walked = batchEnds(pieces, bytes);
  const ends = walked.at(-1) === bytes ? walked : [bytes];
  let kept = 0;
  for (const end of ends) {
    if (end > limit) break;
    kept = end;
  }
  return { kept, first: ends[0] ?? 0 };
}

/** One partition's records as read, and its own bound. */
export interface BoundedRead {
  records: Uint8Array[];
  bytes: number;
  partitionMaxBytes: number;
}

/**
 * How many bytes of each read (in request order) the answer keeps under `maxBytes`: whole
 * batches, each partition within its own bound and what is left of the request's, the first
 * batch of the first partition with data whole. A read whose bytes do not walk as whole
 * batches is kept or left out whole.
 */
export function keptBytes(reads: readonly BoundedRead[], maxBytes: number): number[] {
  let left = maxBytes;
  let anyKept = false;
  return reads.map(({ records, bytes, partitionMaxBytes }) => {
    if (bytes === 0) return 0;
    const within = wholeBatchesWithin(records, bytes, Math.min(partitionMaxBytes, left));
    const kept = within.kept === 0 && !anyKept ? within.first : within.kept;
    left = Math.max(0, left - kept);
    anyKept ||= kept > 0;
    return kept;
  });
}
