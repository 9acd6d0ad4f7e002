/**
 * Writing zstd frames (RFC 8878) in pure TypeScript, since no well-kept zstd encoder runs in
 * Workers without compiling WebAssembly at run time. A deliberately small encoder: LZ77
 * matches from a hash table of 4-byte sequences and a short chain of earlier positions with
 * the same hash (the longest of a few candidates, as libzstd's fast levels search), literals
 * Huffman-coded where that shrinks them (zstd-huffman.ts) and raw otherwise, the sequences
 * entropy-coded with the format's predefined FSE tables; a block that does not shrink is
 * stored raw. Any zstd decoder reads it (libzstd, zstd-jni, franz-go's klauspost, fzstd). The
 * last offset competes with the candidates and repeat offsets are coded as such (a few bits
 * instead of ~10). It trades ratio for simplicity: no tuned sequence tables, no lazy or
 * optimal parsing.
 *
 * Frame: magic 28 B5 2F FD · descriptor (single segment, 4-byte content size, no checksum)
 *        · content size u32 LE · blocks
 * Block: header u24 LE (last · type 0 raw / 2 compressed · size) · content
 * Compressed block: literals section (raw: size header · bytes; or Huffman, zstd-huffman.ts) · sequences section
 *        (count · modes byte 0: all predefined · bitstream read backwards)
 */

import { BitWriter, buildFseTable, encodeSymbol, highBit, initState } from "./zstd-bits.ts";
import { writeHuffmanLiterals } from "./zstd-huffman.ts";

const blockBytesMax = 128 * 1024;
const minMatch = 4;
const hashLog = 16;
/**
 * Earlier positions with a position's hash, indexed by position modulo 64 Ki: candidates within
 * the last 64 KiB, which is also as far as a match reaches. JSON records repeat their fields a
 * few records back, not always in the last one: the longest of `searchDepth` candidates takes
 * a click stream from 6.5 × to 8.4 × (libzstd 12.4 ×). Further back the offset codes cost
 * more than they save and displace the repeat offsets records of one shape reuse (the same
 * search up to 16 MiB back: 7.0 ×).
 */
const chainLog = 16;
const chainMask = (1 << chainLog) - 1;
const searchDepth = 4;
/** Inside a match every 8th position enters the tables: most of the ratio of entering all, at a fraction of the cost. */
const insertStep = 8;

/** The predefined distributions (RFC 8878 §3.1.1.3.2.2): literal lengths, match lengths, offsets. */
const literalLengthNorm = [4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1];
const matchLengthNorm = [
  1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  -1, -1, -1, -1, -1, -1, -1,
];
const offsetNorm = [1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1];

const literalLengthBase = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
const literalLengthBits = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const matchLengthBase = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539,
];
const matchLengthBits = [
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];

const literalLengthTable = /*#__PURE__*/ buildFseTable(literalLengthNorm, 6);
const matchLengthTable = /*#__PURE__*/ buildFseTable(matchLengthNorm, 6);
const offsetTable = /*#__PURE__*/ buildFseTable(offsetNorm, 5);

function literalLengthCode(length: number): number {
  if (length < 16) return length;
  if (length >= 64) return highBit(length) + 19;
  let code = 16;
  while (code < 25 && literalLengthBase[code + 1]! <= length) code++;
  return code;
}

function matchLengthCode(length: number): number {
  const base = length - 3;
  if (base < 32) return base;
  if (base >= 128) return highBit(base) + 36;
  let code = 32;
  while (code < 42 && matchLengthBase[code + 1]! <= length) code++;
  return code;
}

interface Sequences {
  count: number;
  literalLengths: Int32Array;
  matchLengths: Int32Array;
  offsets: Int32Array;
}

function read32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/**
 * The offset value a sequence carries (RFC 8878 §3.1.2.5): 1–3 name a repeat offset (shifted by
 * one after a sequence without literals), above 3 a new offset + 3; `reps` (the decoder's
 * history, [1, 4, 8] at a frame's start) updated as the decoder will.
 */
function offsetValue(offset: number, literalLength: number, reps: Int32Array): number {
  let index = -1;
  if (literalLength > 0) index = offset === reps[0] ? 0 : offset === reps[1] ? 1 : offset === reps[2] ? 2 : -1;
  else index = offset === reps[1] ? 1 : offset === reps[2] ? 2 : offset === reps[0]! - 1 ? 3 : -1;
  if (index === 0) return 1;
  if (index === 1) reps[1] = reps[0]!;
  else {
    reps[2] = reps[1]!;
    reps[1] = reps[0]!;
  }
  reps[0] = offset;
  return index < 0 ? offset + 3 : literalLength > 0 ? index + 1 : index;
}

function hashAt(src: Uint8Array, at: number): number {
  return Math.imul(read32(src, at), 2654435761) >>> (32 - hashLog);
}

/** Bytes from `a` and `b` on that are equal, up to `end` for `b`. */
function commonLength(src: Uint8Array, a: number, b: number, end: number): number {
  let length = 0;
  while (b + length < end && src[a + length] === src[b + length]) length++;
  return length;
}

/** Position i's hash tables, and where a match is searched: a hash table of the newest position per hash, and the chain behind it. */
interface MatchTables {
  heads: Int32Array;
  chain: Int32Array;
  /** The candidate bestMatch chose. */
  found: number;
}

/**
 * The longest match at `i` (0 if none of at least 4 bytes): the last offset, then up to
 * searchDepth candidates of the chain; a longer one wins by 2 bytes (a new offset costs more
 * bits), or by 1 when nearer. When the newest candidate does not match and the last offset
 * does not either, the search stops there: random bytes cost one probe a position, as before
 * the chain. Enters `i` in the tables.
 */
function bestMatch(src: Uint8Array, i: number, end: number, tables: MatchTables, reps: Int32Array): number {
  const value = read32(src, i);
  const hash = Math.imul(value, 2654435761) >>> (32 - hashLog);
  let candidate = tables.heads[hash]!;
  tables.heads[hash] = i;
  tables.chain[i & chainMask] = candidate;
  let bestLength = 0;
  if (i - reps[0]! >= 0 && read32(src, i - reps[0]!) === value) {
    bestLength = minMatch + commonLength(src, i - reps[0]! + minMatch, i + minMatch, end);
    tables.found = i - reps[0]!;
  }
  for (let depth = 0; depth < searchDepth && candidate >= 0 && i - candidate <= chainMask; depth++) {
    if (src[candidate + bestLength] === src[i + bestLength] && read32(src, candidate) === value) {
      const length = minMatch + commonLength(src, candidate + minMatch, i + minMatch, end);
      if (length > bestLength + 1 || (length > bestLength && candidate > tables.found)) {
        bestLength = length;
        tables.found = candidate;
      }
    } else if (bestLength === 0) break;
    candidate = tables.chain[candidate & chainMask]!;
  }
  return bestLength;
}

/** Finds matches in src[start, end), which may reach back before `start`; gathers literals in `literals`. */
function findSequences(src: Uint8Array, start: number, end: number, tables: MatchTables, literals: Uint8Array, sequences: Sequences, reps: Int32Array): number {
  let literalCount = 0;
  let count = 0;
  let anchor = start;
  let i = start;
  const limit = end - 8;
  let misses = 0;
  while (i < limit) {
    let length = bestMatch(src, i, end, tables, reps);
    if (length < minMatch) {
      i += 1 + (misses++ >> 6);
      continue;
    }
    misses = 0;
    let candidate = tables.found;
    while (i > anchor && candidate > 0 && src[i - 1] === src[candidate - 1]) { // back over literals that match too
      i--;
      candidate--;
      length++;
    }
    literals.set(src.subarray(anchor, i), literalCount);
    literalCount += i - anchor;
    sequences.literalLengths[count] = i - anchor;
    sequences.matchLengths[count] = length;
    sequences.offsets[count] = offsetValue(i - candidate, i - anchor, reps);
    count++;
    for (let at = i + 1, stop = Math.min(i + length, limit); at < stop; at += insertStep) {
      const hash = hashAt(src, at);
      tables.chain[at & chainMask] = tables.heads[hash]!;
      tables.heads[hash] = at;
    }
    i += length;
    anchor = i;
  }
  literals.set(src.subarray(anchor, end), literalCount);
  sequences.count = count;
  return literalCount + end - anchor;
}

function writeLiterals(out: Uint8Array, at: number, literals: Uint8Array, count: number): number {
  if (count < 32) {
    out[at++] = count << 3;
  } else if (count < 4096) {
    out[at++] = ((count & 0x0f) << 4) | (1 << 2);
    out[at++] = count >>> 4;
  } else {
    out[at++] = ((count & 0x0f) << 4) | (3 << 2);
    out[at++] = count >>> 4;
    out[at++] = count >>> 12;
  }
  out.set(literals.subarray(0, count), at);
  return at + count;
}

function writeSequences(out: Uint8Array, at: number, sequences: Sequences): number {
  const count = sequences.count;
  if (count < 128) {
    out[at++] = count;
  } else if (count < 0x7f00) {
    out[at++] = (count >>> 8) + 0x80;
    out[at++] = count;
  } else {
    out[at++] = 0xff;
    out[at++] = count - 0x7f00;
    out[at++] = (count - 0x7f00) >>> 8;
  }
  if (count === 0) return at;
  out[at++] = 0; // literal lengths, offsets and match lengths: the predefined tables
  const writer = new BitWriter(out, at);
  const ll = new Uint8Array(count);
  const ml = new Uint8Array(count);
  const of = new Uint8Array(count);
  for (let n = 0; n < count; n++) {
    ll[n] = literalLengthCode(sequences.literalLengths[n]!);
    ml[n] = matchLengthCode(sequences.matchLengths[n]!);
    of[n] = highBit(sequences.offsets[n]!);
  }
  const extraBits = (n: number) => {
    const literalLength = sequences.literalLengths[n]!;
    writer.add(literalLength - literalLengthBase[ll[n]!]!, literalLengthBits[ll[n]!]!);
    writer.add(sequences.matchLengths[n]! - matchLengthBase[ml[n]!]!, matchLengthBits[ml[n]!]!);
    writer.add(sequences.offsets[n]! - (1 << of[n]!), of[n]!);
  };
  const last = count - 1;
  let llState = initState(literalLengthTable, ll[last]!);
  let mlState = initState(matchLengthTable, ml[last]!);
  let ofState = initState(offsetTable, of[last]!);
  extraBits(last);
  for (let n = count - 2; n >= 0; n--) {
    ofState = encodeSymbol(writer, offsetTable, ofState, of[n]!);
    mlState = encodeSymbol(writer, matchLengthTable, mlState, ml[n]!);
    llState = encodeSymbol(writer, literalLengthTable, llState, ll[n]!);
    extraBits(n);
  }
  writer.add(mlState, 6);
  writer.add(ofState, 5);
  writer.add(llState, 6);
  return writer.close();
}

function writeBlockHeader(out: Uint8Array, at: number, last: boolean, type: number, size: number): void {
  const header = (size << 3) | (type << 1) | (last ? 1 : 0);
  out[at] = header;
  out[at + 1] = header >>> 8;
  out[at + 2] = header >>> 16;
}

/** One zstd frame of `src` (see the drawing above). */
export function zstdCompress(src: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(src.length / blockBytesMax));
  // Worst case: every block stored raw, plus the frame header.
  const out = new Uint8Array(9 + blocks * (3 + blockBytesMax) + 64);
  out.set([0x28, 0xb5, 0x2f, 0xfd, 0xa0], 0); // magic; descriptor: 4-byte content size, single segment
  out[5] = src.length;
  out[6] = src.length >>> 8;
  out[7] = src.length >>> 16;
  out[8] = src.length >>> 24;
  let at = 9;
  const tables: MatchTables = { heads: new Int32Array(1 << hashLog).fill(-1), chain: new Int32Array(1 << chainLog).fill(-1), found: -1 };
  const reps = Int32Array.of(1, 4, 8); // the decoder's repeat offsets at a frame's start
  const literals = new Uint8Array(blockBytesMax);
  const sequenceMax = blockBytesMax / minMatch + 1;
  const sequences: Sequences = { count: 0, literalLengths: new Int32Array(sequenceMax), matchLengths: new Int32Array(sequenceMax), offsets: new Int32Array(sequenceMax) };
  // Room for a Huffman attempt that overshoots (it stops after the stream that passes the raw size) and the sequences.
  const scratch = new Uint8Array(2 * blockBytesMax + 1024);
  let start = 0;
  do {
    const end = Math.min(src.length, start + blockBytesMax);
    const last = end === src.length;
    const repsBefore = reps.slice();
    const literalCount = findSequences(src, start, end, tables, literals, sequences, reps);
    // Huffman-coded literals when they come out smaller, raw otherwise; a block without matches may still shrink by its literals.
    const huffman = writeHuffmanLiterals(scratch, 0, literals.subarray(0, literalCount));
    const size = writeSequences(scratch, huffman > 0 ? huffman : writeLiterals(scratch, 0, literals, literalCount), sequences);
    if (size < end - start) {
      writeBlockHeader(out, at, last, 2, size);
      out.set(scratch.subarray(0, size), at + 3);
      at += 3 + size;
    } else {
      reps.set(repsBefore); // a raw block carries no sequences: the decoder's history stays as it was
      writeBlockHeader(out, at, last, 0, end - start);
      out.set(src.subarray(start, end), at + 3);
      at += 3 + end - start;
    }
    start = end;
  } while (start < src.length);
  return out.slice(0, at);
}
