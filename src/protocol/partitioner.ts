/**
 * Kafka's default partitioner, so a keyed record lands on the same partition whether a Java
 * producer, kafkajs (`Partitioners.DefaultPartitioner`) or Tributary's own client sends it.
 * Pure and dependency-free: shared by the router and the client, and runs in Workers, Node and
 * browsers (Uint8Array only, no Buffer).
 *
 * Keyed record:   partition = toPositive(murmur2(keyBytes)) % partitionCount
 *                 toPositive(h) = h & 0x7fffffff   (clears the sign bit; not Math.abs)
 *                 as org.apache.kafka.clients.producer.internals.BuiltInPartitioner.partitionForKey
 * Keyless record: one random partition per produce request ("sticky"), so a request's records
 *                 form one batch on one partition while successive requests spread evenly.
 *
 * murmur2 as Kafka defines it (org.apache.kafka.common.utils.Utils.murmur2): MurmurHash2,
 * 32-bit, seed 0x9747b28c, mixing constants m = 0x5bd1e995 and r = 24. The key is read as
 * little-endian 32-bit words, then 0–3 trailing bytes; the result is a *signed* 32-bit int,
 * the value Java's `int` holds and Kafka's test vectors are written in.
 *
 *   key bytes:   | w0 (4, LE) | w1 (4, LE) | … | tail (length % 4 bytes) |
 *   per word k:  k *= m; k ^= k >>> r; k *= m; h *= m; h ^= k
 *   tail:        h ^= tail[2] << 16; h ^= tail[1] << 8; h ^= tail[0]; h *= m   (those present)
 *   final:       h ^= h >>> 13; h *= m; h ^= h >>> 15
 *
 * Java reads key bytes as signed `byte` and masks each with `& 0xff` to undo sign extension;
 * Uint8Array elements are already 0–255, so no mask is needed here. Every `*` is a 32-bit
 * wrapping multiply (`Math.imul`), every `>>>` an unsigned shift, and `^` brings the value
 * back to a signed 32-bit int, as in Java.
 */

const murmur2Seed = 0x9747b28c;
const murmur2Multiplier = 0x5bd1e995;
const murmur2WordShiftBits = 24;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2): signed 32-bit result, seed 0x9747b28c. */
export function murmur2(bytes: Uint8Array): number {
  const length = bytes.byteLength;
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  // `seed ^ length`: Java's int length, which a Uint8Array's length always fits.
  let hash = murmur2Seed ^ length;

  const tailLength = length & 3;
  const wordsEnd = length - tailLength;
  for (let offset = 0; offset < wordsEnd; offset += 4) {
    let word = view.getInt32(offset, true);
    word = Math.imul(word, murmur2Multiplier);
    word ^= word >>> murmur2WordShiftBits;
    word = Math.imul(word, murmur2Multiplier);
    hash = Math.imul(hash, murmur2Multiplier);
    hash ^= word;
  }

  // Java's `switch (length % 4)` with fall-through: byte 2 (if present), then byte 1, then
  // byte 0 and one multiply — the multiply only when at least one trailing byte exists.
  if (tailLength === 3) hash ^= view.getUint8(wordsEnd + 2) << 16;
  if (tailLength >= 2) hash ^= view.getUint8(wordsEnd + 1) << 8;
  if (tailLength >= 1) {
    hash ^= view.getUint8(wordsEnd);
    hash = Math.imul(hash, murmur2Multiplier);
  }

  hash ^= hash >>> 13;
  hash = Math.imul(hash, murmur2Multiplier);
  hash ^= hash >>> 15;
  return hash | 0;
}

/** Kafka's default partitioner for a keyed record: toPositive(murmur2(keyBytes)) % partitionCount. */
export function partitionForKey(keyBytes: Uint8Array, partitionCount: number): number {
  assertPartitionCount(partitionCount);
  // `& 0x7fffffff` is Kafka's Utils.toPositive: it keeps the low 31 bits, so -1 maps to
  // 2147483647 (not 1) — using Math.abs instead would move keys to other partitions.
  return (murmur2(keyBytes) & 0x7fffffff) % partitionCount;
}

/**
 * Sticky choice for keyless records of one request: one partition per request, spread across
 * requests. Takes a random source for testability.
 *
 * Kafka's BuiltInPartitioner sticks to one partition until about `batch.size` bytes have gone
 * to it; a Tributary produce request is already one batch, so it sticks for one request and
 * draws uniformly for the next. `random` follows Math.random's contract: a number in [0, 1).
 */
export function stickyPartition(partitionCount: number, random: () => number = Math.random): number {
  assertPartitionCount(partitionCount);
  const draw = random();
  // A source outside [0, 1) would pick a partition that does not exist; refuse it loudly.
  if (!(draw >= 0 && draw < 1)) {
    throw new RangeError(`random source returned ${draw}; expected a number in [0, 1)`);
  }
  return Math.floor(draw * partitionCount);
}

function assertPartitionCount(partitionCount: number): void {
  if (!Number.isSafeInteger(partitionCount) || partitionCount < 1) {
    throw new RangeError(`partitionCount must be a positive integer, got ${partitionCount}`);
  }
}
