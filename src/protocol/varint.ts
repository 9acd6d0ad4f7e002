/**
 * Kafka's variable-length integers (protobuf's encoding), used inside record batch v2.
 *
 * ZigZag first maps a signed value to an unsigned one so that small magnitudes stay small:
 *
 *   value   0   -1   1   -2   2  …  2147483647  -2147483648
 *   zigzag  0    1   2    3   4  …  4294967294   4294967295
 *
 * then the unsigned value is written 7 bits a byte, least significant group first, with the
 * high bit (0x80) set on every byte except the last:
 *
 *   300 → zigzag 600 = 0b100_1011000 → [1_1011000] [0_0000100] = 0xD8 0x04
 *
 *   varint   int32 in 1..5 bytes  (the 5th byte carries the top 4 bits only)
 *   varlong  int64 in 1..10 bytes
 *
 * A varlong is held in a JS number, so only safe integers (|v| ≤ 2^53 − 1) are written or
 * read; a longer value on the wire is refused, never rounded. Its zigzag form can reach 2^54,
 * beyond exact doubles, so varlongs are coded with arithmetic on the magnitude, never by
 * forming the zigzag value itself (and never with 32-bit bitwise operators beyond 2^30).
 *
 * Reads refuse truncated input, a continuation past the 5th (varint) or 10th (varlong) byte,
 * and values outside int32 / the safe range, with a VarintError. Like Kafka, they accept
 * non-minimal encodings inside those bounds (e.g. 0x80 0x00 for 0): the batch CRC, not the
 * varint, is what detects corruption.
 */

export class VarintError extends Error {
  override readonly name = "VarintError";
}

export const varintBytesMax = 5;
export const varlongBytesMax = 10;

/** A read position inside `bytes[..end)`; the `take*` functions advance `position`. */
export interface ByteCursor {
  bytes: Uint8Array;
  position: number;
  end: number;
}

export interface VarintRead {
  value: number;
  next: number;
}

const twoPow30 = 0x40000000;

function assertInt32(value: number): void {
  if ((value | 0) !== value) throw new RangeError(`varint: ${value} is not a 32-bit integer`);
}

function assertSafeInteger(value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`varlong: ${value} is not a safe integer`);
}

function unsignedSize(zigzag: number): number {
  if (zigzag < 0x80) return 1;
  if (zigzag < 0x4000) return 2;
  if (zigzag < 0x200000) return 3;
  if (zigzag < 0x10000000) return 4;
  return 5;
}

/** Bytes `value` (an int32) takes as a varint. */
export function varintSize(value: number): number {
  assertInt32(value);
  return unsignedSize(((value << 1) ^ (value >> 31)) >>> 0);
}

/** Bytes `value` (a safe integer) takes as a varlong. */
export function varlongSize(value: number): number {
  if (value >= -twoPow30 && value < twoPow30 && (value | 0) === value) {
    return unsignedSize(((value << 1) ^ (value >> 31)) >>> 0);
  }
  assertSafeInteger(value);
  // zigzag = 2m + sign with m = |value| (or |value| − 1 when negative); it needs k bytes
  // while it is below 2^(7k), that is while m is below 2^(7k − 1).
  const magnitude = value >= 0 ? value : -value - 1;
  let size = 1;
  for (let limit = 64; magnitude >= limit; limit *= 128) size++;
  return size;
}

function writeUnsigned(bytes: Uint8Array, at: number, zigzag: number): number {
  let position = at;
  let rest = zigzag;
  while (rest >= 0x80) {
    bytes[position++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  bytes[position++] = rest;
  if (at < 0 || position > bytes.length) throw new RangeError(`varint: no room at ${at}`);
  return position;
}

/** Writes `value` (an int32) as a varint at `at`; returns the position after it. */
export function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  assertInt32(value);
  return writeUnsigned(bytes, at, ((value << 1) ^ (value >> 31)) >>> 0);
}

/** Writes `value` (a safe integer) as a varlong at `at`; returns the position after it. */
export function writeVarlong(bytes: Uint8Array, at: number, value: number): number {
  if (value >= -twoPow30 && value < twoPow30 && (value | 0) === value) {
    return writeUnsigned(bytes, at, ((value << 1) ^ (value >> 31)) >>> 0);
  }
  assertSafeInteger(value);
  const sign = value < 0 ? 1 : 0;
  const magnitude = sign ? -value - 1 : value;
  // zigzag = 2·magnitude + sign: its low 7 bits are 2·(magnitude mod 64) + sign, and the
  // remaining groups are those of floor(magnitude / 64) — all exact below 2^53.
  let position = at;
  let rest = Math.floor(magnitude / 64);
  bytes[position++] = (magnitude % 64) * 2 + sign + (rest > 0 ? 0x80 : 0);
  while (rest > 0) {
    const group = rest % 128;
    rest = Math.floor(rest / 128);
    bytes[position++] = group + (rest > 0 ? 0x80 : 0);
  }
  if (at < 0 || position > bytes.length) throw new RangeError(`varlong: no room at ${at}`);
  return position;
}

function truncated(cursor: ByteCursor, start: number): VarintError {
  return new VarintError(`varint truncated: starts at ${start}, input ends at ${cursor.end}`);
}

/** Reads a varint (int32) at `cursor.position` and advances past it. */
export function takeVarint(cursor: ByteCursor): number {
  const { bytes, end } = cursor;
  const start = cursor.position;
  let position = start;
  if (position >= end) throw truncated(cursor, start);
  let byte = bytes[position++]!;
  let zigzag = byte & 0x7f;
  for (let shift = 7; byte >= 0x80; shift += 7) {
    if (position >= end) throw truncated(cursor, start);
    byte = bytes[position++]!;
    if (shift === 28 && byte > 0x0f) {
      throw new VarintError(`varint at ${start} does not fit in 32 bits`);
    }
    zigzag |= (byte & 0x7f) << shift;
  }
  cursor.position = position;
  return (zigzag >>> 1) ^ -(zigzag & 1);
}

/** Reads a varlong (a safe integer) at `cursor.position` and advances past it. */
export function takeVarlong(cursor: ByteCursor): number {
  const { bytes, end } = cursor;
  const start = cursor.position;
  let position = start;
  // Up to four bytes (28 bits) fit 32-bit arithmetic: the common case of small deltas.
  let zigzag = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (position >= end) throw truncated(cursor, start);
    const byte = bytes[position++]!;
    zigzag |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      cursor.position = position;
      return (zigzag >>> 1) ^ -(zigzag & 1);
    }
  }
  // Beyond: accumulate the magnitude (zigzag without its sign bit) in a double.
  const sign = zigzag & 1;
  let magnitude = zigzag >>> 1;
  let scale = 2 ** 27;
  for (let index = 4; ; index++) {
    if (index === varlongBytesMax) {
      throw new VarintError(`varlong at ${start} is longer than ${varlongBytesMax} bytes`);
    }
    if (position >= end) throw truncated(cursor, start);
    const byte = bytes[position++]!;
    magnitude += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) break;
  }
  if (magnitude > Number.MAX_SAFE_INTEGER - sign) {
    throw new VarintError(`varlong at ${start} is beyond ±(2^53 − 1)`);
  }
  cursor.position = position;
  return sign ? -magnitude - 1 : magnitude;
}

function cursorAt(bytes: Uint8Array, at: number, end: number): ByteCursor {
  if (!Number.isInteger(at) || !Number.isInteger(end) || at < 0 || end > bytes.length) {
    throw new RangeError(`varint: read range [${at}, ${end}) is outside 0..${bytes.length}`);
  }
  return { bytes, position: at, end };
}

/** Reads a varint (int32) at `at`, not reading at or past `end`. */
export function readVarint(bytes: Uint8Array, at: number, end = bytes.length): VarintRead {
  const cursor = cursorAt(bytes, at, end);
  const value = takeVarint(cursor);
  return { value, next: cursor.position };
}

/** Reads a varlong (a safe integer) at `at`, not reading at or past `end`. */
export function readVarlong(bytes: Uint8Array, at: number, end = bytes.length): VarintRead {
  const cursor = cursorAt(bytes, at, end);
  const value = takeVarlong(cursor);
  return { value, next: cursor.position };
}
