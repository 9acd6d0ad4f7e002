/**
 * Snappy as Kafka's codec 2 carries it. Written as one raw Snappy block (what librdkafka and
 * franz-go write; the Java client's snappy-java reads a stream without its header as raw).
 * Read as raw, or in the xerial framing the Java client writes (snappy-java's
 * SnappyOutputStream): an 8-byte magic, two int32 versions, then chunks of int32 length (big
 * endian) and a raw block. Pure TypeScript.
 *
 * Raw block: uncompressed length as a varint · elements, by the tag byte's low two bits:
 *   00 literal        length − 1 in the tag's high 6 bits (60-63: in the next 1-4 bytes, LE)
 *   01 copy, 1-byte   length 4 + bits 2-4, offset bits 5-7 << 8 | next byte
 *   10 copy, 2-byte   length 1 + bits 2-7, offset u16 LE
 *   11 copy, 4-byte   length 1 + bits 2-7, offset u32 LE
 */
import { BoundedOutput, corrupt, tooLarge } from "./compression-error.ts";

const codec = "snappy";
const xerialMagic = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const xerialHeaderBytes = 16;
/** Snappy compresses in 64 KiB fragments, so offsets fit the 2-byte copy. */
const fragmentBytes = 65536;
const hashLog = 14;

function read32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function emitLiteral(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  const n = end - start - 1;
  if (n < 60) {
    out[at++] = n << 2;
  } else if (n < 0x100) {
    out[at++] = 60 << 2;
    out[at++] = n;
  } else if (n < 0x10000) {
    out[at++] = 61 << 2;
    out[at++] = n;
    out[at++] = n >>> 8;
  } else {
    out[at++] = 62 << 2;
    out[at++] = n;
    out[at++] = n >>> 8;
    out[at++] = n >>> 16;
  }
  out.set(src.subarray(start, end), at);
  return at + end - start;
}

function emitCopy(out: Uint8Array, at: number, offset: number, length: number): number {
  while (length >= 68) {
    out[at++] = (63 << 2) | 2;
    out[at++] = offset;
    out[at++] = offset >>> 8;
    length -= 64;
  }
  if (length > 64) {
    out[at++] = (59 << 2) | 2; // 60 bytes, leaving at least 4 for the last copy
    out[at++] = offset;
    out[at++] = offset >>> 8;
    length -= 60;
  }
  if (length < 12 && offset < 2048) {
    out[at++] = ((offset >>> 8) << 5) | ((length - 4) << 2) | 1;
    out[at++] = offset;
  } else {
    out[at++] = ((length - 1) << 2) | 2;
    out[at++] = offset;
    out[at++] = offset >>> 8;
  }
  return at;
}

function compressFragment(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number, table: Int32Array): number {
  table.fill(-1);
  let anchor = start;
  let i = start;
  const limit = end - 4;
  let misses = 0;
  while (i < limit) {
    const sequence = read32(src, i);
    const hash = Math.imul(sequence, 0x1e35a7bd) >>> (32 - hashLog);
    const candidate = table[hash]!;
    table[hash] = i;
    if (candidate < 0 || read32(src, candidate) !== sequence) {
      i += 1 + (misses++ >> 5);
      continue;
    }
    misses = 0;
    let length = 4;
    while (i + length < end && src[candidate + length] === src[i + length]) length++;
    if (i > anchor) at = emitLiteral(src, anchor, i, out, at);
    at = emitCopy(out, at, i - candidate, length);
    i += length;
    anchor = i;
  }
  if (anchor < end) at = emitLiteral(src, anchor, end, out, at);
  return at;
}

/** One raw Snappy block of `src`. */
export function snappyCompress(src: Uint8Array): Uint8Array {
  const out = new Uint8Array(32 + src.length + Math.ceil(src.length / 6));
  let at = 0;
  let length = src.length;
  while (length >= 0x80) {
    out[at++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  out[at++] = length;
  const table = new Int32Array(1 << hashLog);
  for (let start = 0; start < src.length; start += fragmentBytes) {
    at = compressFragment(src, start, Math.min(src.length, start + fragmentBytes), out, at, table);
  }
  return out.slice(0, at);
}

function decompressRaw(src: Uint8Array, start: number, end: number, output: BoundedOutput): void {
  let at = start;
  let declared = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= end || shift > 28) corrupt(codec, "bad length preamble");
    const byte = src[at++]!;
    declared += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (declared > output.bytesMax - output.length) tooLarge(codec, output.bytesMax);
  output.reserve(declared);
  const bytes = output.bytes;
  const first = output.length;
  const stop = first + declared;
  let to = first;
  while (at < end) {
    const tag = src[at++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let length = tag >>> 2;
      if (length >= 60) {
        const width = length - 59;
        if (end - at < width) corrupt(codec, "truncated literal length");
        length = 0;
        for (let i = 0; i < width; i++) length += src[at + i]! * 2 ** (8 * i);
        at += width;
      }
      length += 1;
      if (length > end - at || length > stop - to) corrupt(codec, "a literal runs past the data");
      bytes.set(src.subarray(at, at + length), to);
      at += length;
      to += length;
      continue;
    }
    let length: number;
    let offset: number;
    if (kind === 1) {
      if (at >= end) corrupt(codec, "truncated copy");
      length = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[at++]!;
    } else if (kind === 2) {
      if (end - at < 2) corrupt(codec, "truncated copy");
      length = 1 + (tag >>> 2);
      offset = src[at]! | (src[at + 1]! << 8);
      at += 2;
    } else {
      if (end - at < 4) corrupt(codec, "truncated copy");
      length = 1 + (tag >>> 2);
      offset = read32(src, at) >>> 0;
      at += 4;
    }
    if (offset === 0 || offset > to - first) corrupt(codec, `copy offset ${offset} reaches before the data`);
    if (length > stop - to) corrupt(codec, "a copy runs past the data");
    let from = to - offset;
    if (offset >= length) {
      bytes.copyWithin(to, from, from + length);
      to += length;
    } else {
      for (let i = 0; i < length; i++) bytes[to++] = bytes[from++]!;
    }
  }
  if (to !== stop) corrupt(codec, `${to - first} bytes decoded, ${declared} declared`);
  output.length = stop;
}

function isXerial(src: Uint8Array): boolean {
  if (src.length < xerialHeaderBytes) return false;
  for (let i = 0; i < xerialMagic.length; i++) if (src[i] !== xerialMagic[i]) return false;
  return true;
}

/** Decodes a raw Snappy block or a xerial stream into at most `bytesMax` bytes. */
export function snappyDecompress(src: Uint8Array, bytesMax: number): Uint8Array {
  const output = new BoundedOutput(codec, bytesMax, 0);
  if (!isXerial(src)) {
    decompressRaw(src, 0, src.length, output);
    return output.result();
  }
  let at = xerialHeaderBytes;
  while (at < src.length) {
    if (src.length - at < 4) corrupt(codec, "truncated xerial chunk length");
    const length = ((src[at]! << 24) | (src[at + 1]! << 16) | (src[at + 2]! << 8) | src[at + 3]!) >>> 0;
    at += 4;
    if (length > src.length - at) corrupt(codec, `xerial chunk of ${length} bytes runs past the data`);
    decompressRaw(src, at, at + length, output);
    at += length;
  }
  return output.result();
}
