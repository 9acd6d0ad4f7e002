/**
 * LZ4 as Kafka's codec 3 carries it: the LZ4 frame format (not bare blocks), written with
 * independent 64 KiB blocks, no block checksums and a content checksum, which Kafka's Java
 * client (KafkaLZ4BlockInputStream), librdkafka and franz-go read. Reading takes any frame
 * the format allows (dependent blocks, block checksums, a content size, several frames)
 * but a dictionary. Pure TypeScript.
 *
 * Frame: magic 04 22 4D 18 · FLG · BD · [content size u64] · HC (xxh32 of FLG…>>8 & 0xFF)
 *        · blocks: size u32 LE (bit 31: stored uncompressed) · data · [xxh32 of data]
 *        · end mark 00 00 00 00 · [content checksum: xxh32 of everything decoded]
 * Block: sequences of token (literals << 4 | match − 4) · [literal length bytes] · literals
 *        · offset u16 LE · [match length bytes]; the last sequence has literals only.
 */
import { xxhash32 } from "./checksums.ts";
import { BoundedOutput, corrupt } from "./compression-error.ts";

const frameMagic = 0x184d2204;
const skippableMagicMask = 0xfffffff0;
const skippableMagic = 0x184d2a50;
const blockBytes = 64 * 1024;
/** BD for 64 KiB blocks (code 4), the smallest the format allows. */
const blockDescriptor = 4 << 4;
/** FLG: version 01, independent blocks, content checksum. */
const frameFlags = 0x40 | 0x20 | 0x04;
const minMatch = 4;
/** The last 5 bytes are always literals; a match starts at least 12 bytes before the end. */
const lastLiterals = 5;
const matchFindLimit = 12;
const hashLog = 14;
const codec = "lz4";

function read32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function write32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value;
  bytes[at + 1] = value >>> 8;
  bytes[at + 2] = value >>> 16;
  bytes[at + 3] = value >>> 24;
}

function writeLength(out: Uint8Array, at: number, length: number): number {
  while (length >= 255) {
    out[at++] = 255;
    length -= 255;
  }
  out[at++] = length;
  return at;
}

/** Compresses src[start, end) into out at `at` as one LZ4 block; answers the end, or -1 when it did not shrink. */
function compressBlock(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number, table: Int32Array): number {
  const outLimit = at + (end - start);
  table.fill(-1);
  let anchor = start;
  let i = start;
  const matchStartLimit = end - matchFindLimit;
  const matchEndLimit = end - lastLiterals;
  let misses = 0;
  while (i < matchStartLimit) {
    const sequence = read32(src, i);
    const hash = Math.imul(sequence, 2654435761) >>> (32 - hashLog);
    const candidate = table[hash]!;
    table[hash] = i;
    if (candidate < 0 || i - candidate > 0xffff || read32(src, candidate) !== sequence) {
      i += 1 + (misses++ >> 6); // skip faster through bytes that do not match
      continue;
    }
    misses = 0;
    let length = minMatch;
    while (i + length < matchEndLimit && src[candidate + length] === src[i + length]) length++;
    const literals = i - anchor;
    if (at + literals + 16 + ((literals + length) >> 8) > outLimit) return -1;
    const token = at++;
    out[token] = (Math.min(literals, 15) << 4) | Math.min(length - minMatch, 15);
    if (literals >= 15) at = writeLength(out, at, literals - 15);
    out.set(src.subarray(anchor, i), at);
    at += literals;
    const offset = i - candidate;
    out[at++] = offset;
    out[at++] = offset >>> 8;
    if (length - minMatch >= 15) at = writeLength(out, at, length - minMatch - 15);
    i += length;
    anchor = i;
  }
  const literals = end - anchor;
  if (at + literals + 2 + (literals >> 8) > outLimit) return -1;
  out[at++] = Math.min(literals, 15) << 4;
  if (literals >= 15) at = writeLength(out, at, literals - 15);
  out.set(src.subarray(anchor, end), at);
  return at + literals;
}

/** An LZ4 frame of `src` (see the drawing above). */
export function lz4Compress(src: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(src.length / blockBytes));
  const out = new Uint8Array(7 + blocks * (4 + blockBytes) + 8);
  write32(out, 0, frameMagic);
  out[4] = frameFlags;
  out[5] = blockDescriptor;
  out[6] = (xxhash32(out, 4, 6) >>> 8) & 0xff;
  let at = 7;
  const table = new Int32Array(1 << hashLog);
  for (let start = 0; start < src.length; start += blockBytes) {
    const end = Math.min(src.length, start + blockBytes);
    const written = compressBlock(src, start, end, out, at + 4, table);
    if (written < 0) {
      write32(out, at, (end - start) | 0x80000000);
      out.set(src.subarray(start, end), at + 4);
      at += 4 + end - start;
    } else {
      write32(out, at, written - at - 4);
      at = written;
    }
  }
  write32(out, at, 0);
  write32(out, at + 4, xxhash32(src));
  return out.slice(0, at + 8);
}

function readLength(src: Uint8Array, at: number, end: number, length: number): [number, number] {
  let byte = 255;
  while (byte === 255) {
    if (at >= end) corrupt(codec, "a length runs past its block");
    byte = src[at++]!;
    length += byte;
  }
  return [length, at];
}

/** Decodes one block of src[at, end) onto `output`; offsets may reach back into earlier blocks (dependent blocks). */
function decompressBlock(src: Uint8Array, at: number, end: number, output: BoundedOutput): void {
  while (at < end) {
    const token = src[at++]!;
    let literals = token >>> 4;
    if (literals === 15) [literals, at] = readLength(src, at, end, literals);
    if (literals > end - at) corrupt(codec, "literals run past their block");
    output.reserve(literals);
    output.bytes.set(src.subarray(at, at + literals), output.length);
    output.length += literals;
    at += literals;
    if (at === end) return; // the last sequence: literals only
    if (end - at < 2) corrupt(codec, "an offset runs past its block");
    const offset = src[at]! | (src[at + 1]! << 8);
    at += 2;
    if (offset === 0 || offset > output.length) corrupt(codec, `offset ${offset} reaches before the data`);
    let length = token & 15;
    if (length === 15) [length, at] = readLength(src, at, end, length);
    length += minMatch;
    output.reserve(length);
    const bytes = output.bytes;
    let to = output.length;
    let from = to - offset;
    const stop = to + length;
    if (offset >= length) bytes.copyWithin(to, from, from + length);
    else while (to < stop) bytes[to++] = bytes[from++]!; // overlapping: byte by byte
    output.length = stop;
  }
  corrupt(codec, "a block ends without its last literals");
}

/** Parses one frame's header at `at`; answers where its blocks start and its flags. */
function readFrameHeader(src: Uint8Array, at: number): { at: number; flags: number; blockMax: number } {
  if (src.length - at < 7) corrupt(codec, "truncated frame header");
  const flags = src[at + 4]!;
  if (flags >>> 6 !== 1) corrupt(codec, `frame version ${flags >>> 6}`);
  if (flags & 0x01) corrupt(codec, "frames with a dictionary are not supported");
  const descriptorEnd = at + 6 + (flags & 0x08 ? 8 : 0);
  if (src.length < descriptorEnd + 1) corrupt(codec, "truncated frame header");
  const blockCode = (src[at + 5]! >>> 4) & 7;
  if (blockCode < 4) corrupt(codec, `block size code ${blockCode}`);
  if (src[descriptorEnd] !== ((xxhash32(src, at + 4, descriptorEnd) >>> 8) & 0xff)) corrupt(codec, "frame header checksum");
  return { at: descriptorEnd + 1, flags, blockMax: 1 << (8 + 2 * blockCode) };
}

/** Decodes LZ4 frames (one or more, skippable frames skipped) into at most `bytesMax` bytes. */
export function lz4Decompress(src: Uint8Array, bytesMax: number): Uint8Array {
  if (src.length === 0) corrupt(codec, "no frame");
  const output = new BoundedOutput(codec, bytesMax, src.length * 3);
  let at = 0;
  while (at < src.length) {
    if (src.length - at < 8) corrupt(codec, "truncated frame");
    const magic = read32(src, at) >>> 0;
    if ((magic & skippableMagicMask) >>> 0 === skippableMagic) {
      at += 8 + (read32(src, at + 4) >>> 0);
      continue;
    }
    if (magic !== frameMagic) corrupt(codec, "not an LZ4 frame");
    const header = readFrameHeader(src, at);
    at = header.at;
    const frameStart = output.length;
    for (;;) {
      if (src.length - at < 4) corrupt(codec, "truncated block");
      const word = read32(src, at) >>> 0;
      at += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      if (size > header.blockMax || size > src.length - at) corrupt(codec, `block of ${size} bytes`);
      if (word & 0x80000000) {
        output.reserve(size);
        output.bytes.set(src.subarray(at, at + size), output.length);
        output.length += size;
      } else {
        decompressBlock(src, at, at + size, output);
      }
      at += size;
      if (header.flags & 0x10) {
        if (src.length - at < 4) corrupt(codec, "truncated block checksum");
        if (read32(src, at) >>> 0 !== xxhash32(src, at - size, at)) corrupt(codec, "block checksum");
        at += 4;
      }
    }
    if (header.flags & 0x04) {
      if (src.length - at < 4) corrupt(codec, "truncated content checksum");
      if (read32(src, at) >>> 0 !== xxhash32(output.bytes, frameStart, output.length)) corrupt(codec, "content checksum");
      at += 4;
    }
  }
  return output.result();
}
