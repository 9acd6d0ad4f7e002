/**
 * Huffman-coded literals for the zstd encoder (RFC 8878 §3.1.1.3.1 and §4.2): most of what
 * zstd gains on text over LZ4 is here, since a block's literals (the bytes no match covers)
 * are stored otherwise at 8 bits each. A block's literals get their own prefix code (at most
 * 11 bits, the format's bound), described by its weights, FSE-compressed (any byte value: a
 * records section's varints pass 128) or directly in 4 bits each (byte values up to 128),
 * whichever is smaller; literals too few to pay for the description stay raw (the caller's
 * choice when this answers -1).
 *
 * Section: header (type 2 · size format · regenerated size · compressed size, 3–5 bytes)
 *          · tree description (size < 128 · FSE table description · two-state FSE bitstream;
 *            or 127 + weights count · two 4-bit weights a byte)
 *          · one stream (≤ 1023 literals) or a 6-byte jump table and four streams,
 *            each a bitstream of the codes written last symbol first (the decoder reads it from the end)
 */
import { BitWriter, buildFseTable, encodeSymbol, initState } from "./zstd-bits.ts";

const maxCodeBits = 11;
/** The direct weights describe symbols 0..127 and imply the last one: at most byte value 128. */
const directSymbolMax = 128;
/** Below this many literals the tree description costs about what the code saves. */
const literalsMin = 64;
const singleStreamMax = 1023;

/** Code lengths of a Huffman code over `counts` of `symbols` (0 for the others), at most maxCodeBits long. */
export function codeLengths(counts: Uint32Array, symbols: number[]): Uint8Array {
  const weights = symbols.map((symbol) => counts[symbol]!);
  for (;;) {
    const lengths = huffmanLengths(weights);
    if (Math.max(...lengths) <= maxCodeBits) {
      const result = new Uint8Array(256);
      symbols.forEach((symbol, i) => (result[symbol] = lengths[i]!));
      return result;
    }
    // Flatter counts make a shallower tree; a few halvings reach the bound (all equal: depth 8).
    for (let i = 0; i < weights.length; i++) weights[i] = Math.max(1, weights[i]! >>> 1);
  }
}

/** Depths of the leaves of a Huffman tree over `weights` (two or more), in their order. */
function huffmanLengths(weights: readonly number[]): number[] {
  const leaves = weights.map((weight, i) => ({ weight, i })).sort((a, b) => a.weight - b.weight);
  const count = leaves.length;
  // Nodes 0..count-1 are the sorted leaves, count.. the merged ones, made in increasing weight.
  const nodeWeight = new Float64Array(2 * count);
  const parent = new Int32Array(2 * count);
  leaves.forEach((leaf, n) => (nodeWeight[n] = leaf.weight));
  let nextLeaf = 0;
  let nextMerged = count;
  let made = count;
  const smallest = () => (nextLeaf < count && (nextMerged >= made || nodeWeight[nextLeaf]! <= nodeWeight[nextMerged]!) ? nextLeaf++ : nextMerged++);
  while (made < 2 * count - 1) {
    const a = smallest();
    const b = smallest();
    nodeWeight[made] = nodeWeight[a]! + nodeWeight[b]!;
    parent[a] = made;
    parent[b] = made;
    made++;
  }
  const depth = new Int32Array(2 * count);
  for (let n = made - 2; n >= 0; n--) depth[n] = depth[parent[n]!]! + 1;
  const lengths = new Array<number>(count);
  leaves.forEach((leaf, n) => (lengths[leaf.i] = depth[n]!));
  return lengths;
}

/** Canonical codes as the decoder fills its table: by weight ascending, then by symbol. */
function canonicalCodes(lengths: Uint8Array, tableLog: number): Uint16Array {
  const codes = new Uint16Array(256);
  let position = 0;
  for (let weight = 1; weight <= tableLog; weight++) {
    const bits = tableLog + 1 - weight;
    for (let symbol = 0; symbol < 256; symbol++) {
      if (lengths[symbol] !== bits) continue;
      codes[symbol] = position >>> (weight - 1);
      position += 1 << (weight - 1);
    }
  }
  return codes;
}

function writeStream(out: Uint8Array, at: number, literals: Uint8Array, codes: Uint16Array, lengths: Uint8Array): number {
  const writer = new BitWriter(out, at);
  for (let i = literals.length - 1; i >= 0; i--) writer.add(codes[literals[i]!]!, lengths[literals[i]!]!);
  return writer.close();
}

/**
 * Writes `literals` Huffman-coded at `out[at]` (room for literals.length + 200 bytes); answers
 * the section's end, or -1 when they are better or only possible raw.
 */
export function writeHuffmanLiterals(out: Uint8Array, at: number, literals: Uint8Array): number {
  const size = literals.length;
  if (size < literalsMin) return -1;
  const counts = new Uint32Array(256);
  for (let i = 0; i < size; i++) counts[literals[i]!]!++;
  const symbols: number[] = [];
  for (let symbol = 0; symbol < 256; symbol++) if (counts[symbol]! > 0) symbols.push(symbol);
  const lastSymbol = symbols.at(-1)!;
  if (symbols.length < 2) return -1;
  const lengths = codeLengths(counts, symbols);
  let tableLog = 0;
  for (const symbol of symbols) tableLog = Math.max(tableLog, lengths[symbol]!);
  const codes = canonicalCodes(lengths, tableLog);

  const single = size <= singleStreamMax;
  const headerBytes = single || size <= 1023 ? 3 : size <= 16383 ? 4 : 5;
  const sectionStart = at + headerBytes;
  let position = writeTreeDescription(out, sectionStart, lengths, lastSymbol, tableLog);
  if (position < 0) return -1;
  if (single) {
    position = writeStream(out, position, literals, codes, lengths);
  } else {
    const segment = Math.floor((size + 3) / 4);
    const jumpTable = position;
    position += 6;
    for (let stream = 0; stream < 4; stream++) {
      const streamStart = position;
      position = writeStream(out, position, literals.subarray(stream * segment, stream === 3 ? size : (stream + 1) * segment), codes, lengths);
      if (stream < 3) {
        out[jumpTable + 2 * stream] = position - streamStart;
        out[jumpTable + 2 * stream + 1] = (position - streamStart) >>> 8;
      }
      if (position - at >= size) return -1; // already no smaller than raw
    }
  }
  const compressed = position - sectionStart;
  if (compressed + headerBytes >= size + (size < 32 ? 1 : size < 4096 ? 2 : 3)) return -1;
  writeHeader(out, at, single ? 0 : headerBytes === 3 ? 1 : headerBytes === 4 ? 2 : 3, size, compressed);
  return position;
}

/**
 * The tree description: the weights of symbols 0..lastSymbol-1 (the last one's is implied),
 * FSE-compressed (header byte = their size, < 128) when that is smaller or the only way
 * (a literal byte past 128), else directly (header byte 127 + count, two 4-bit weights a byte).
 * Answers its end, or -1 when neither fits.
 */
function writeTreeDescription(out: Uint8Array, at: number, lengths: Uint8Array, lastSymbol: number, tableLog: number): number {
  const weights = new Uint8Array(lastSymbol);
  for (let symbol = 0; symbol < lastSymbol; symbol++) weights[symbol] = lengths[symbol]! > 0 ? tableLog + 1 - lengths[symbol]! : 0;
  const directBytes = lastSymbol <= directSymbolMax ? 1 + Math.ceil(lastSymbol / 2) : Infinity;
  const fseEnd = writeFseWeights(out, at + 1, weights, tableLog);
  if (fseEnd > 0 && fseEnd - at < directBytes) {
    out[at] = fseEnd - at - 1;
    return fseEnd;
  }
  if (directBytes === Infinity) return -1;
  out[at] = 127 + lastSymbol;
  for (let symbol = 0; symbol < lastSymbol; symbol += 2) out[at + 1 + symbol / 2] = (weights[symbol]! << 4) | (symbol + 1 < lastSymbol ? weights[symbol + 1]! : 0);
  return at + directBytes;
}

/** FSE's accuracy for Huffman weights: at most 6 (RFC 8878 §4.2.1.2), at least FSE's 5. */
const weightsTableLog = 6;
/** An FSE-compressed description is announced by a header byte below 128. */
const fseWeightsBytesMax = 127;

/**
 * The weights FSE-compressed as libzstd writes them (FSE_compress with two interleaved states):
 * the normalized counts (FSE_writeNCount's format), then the bitstream, symbols encoded from
 * the last, even indexes on the first state and odd on the second. Answers the end, or -1.
 */
function writeFseWeights(out: Uint8Array, at: number, weights: Uint8Array, tableLog: number): number {
  const counts = new Array<number>(tableLog + 1).fill(0);
  for (const weight of weights) counts[weight]!++;
  if (weights.length < 2 || counts.filter((count) => count > 0).length < 2) return -1; // one symbol: no bits to end the stream on
  let maxSymbol = tableLog;
  while (counts[maxSymbol] === 0) maxSymbol--;
  const norm = normalize(counts.slice(0, maxSymbol + 1), weights.length);
  const writer = new BitWriter(out, at);
  writeNormalizedCounts(writer, norm);
  const table = buildFseTable(norm, weightsTableLog);
  const n = weights.length;
  const states = [0, 0];
  states[(n - 1) & 1] = initState(table, weights[n - 1]!);
  states[(n - 2) & 1] = initState(table, weights[n - 2]!);
  for (let i = n - 3; i >= 0; i--) states[i & 1] = encodeSymbol(writer, table, states[i & 1]!, weights[i]!);
  writer.add(states[1]!, weightsTableLog);
  writer.add(states[0]!, weightsTableLog);
  const end = writer.close();
  return end - at <= fseWeightsBytesMax ? end : -1;
}

/** Counts scaled to sum to 2^weightsTableLog, every present symbol at least 1. */
function normalize(counts: number[], total: number): number[] {
  const size = 1 << weightsTableLog;
  const norm = counts.map((count) => (count === 0 ? 0 : Math.max(1, Math.round((count * size) / total))));
  let largest = 0;
  for (let s = 1; s < norm.length; s++) if (norm[s]! > norm[largest]!) largest = s;
  norm[largest]! += size - norm.reduce((sum, value) => sum + value, 0);
  return norm;
}

/** FSE's table description (RFC 8878 §4.1.1): accuracy, then each count + 1 in a shrinking number of bits, runs of zeros as repeat flags. */
function writeNormalizedCounts(writer: BitWriter, norm: number[]): void {
  const size = 1 << weightsTableLog;
  writer.add(weightsTableLog - 5, 4);
  let remaining = size + 1;
  let threshold = size;
  let bits = weightsTableLog + 1;
  let symbol = 0;
  let previousIsZero = false;
  while (symbol < norm.length && remaining > 1) {
    if (previousIsZero) {
      let start = symbol;
      while (symbol < norm.length && norm[symbol] === 0) symbol++;
      while (symbol >= start + 24) {
        start += 24;
        writer.add(0xffff, 16);
      }
      while (symbol >= start + 3) {
        start += 3;
        writer.add(3, 2);
      }
      writer.add(symbol - start, 2);
    }
    const count = norm[symbol++]!;
    const max = 2 * threshold - 1 - remaining;
    remaining -= count;
    let value = count + 1;
    if (value >= threshold) value += max;
    writer.add(value, value < max ? bits - 1 : bits);
    previousIsZero = value === 1;
    while (remaining < threshold) {
      bits--;
      threshold >>= 1;
    }
  }
  writer.pad();
}

/** The literals section header of a compressed block: 2 bits type 2, 2 bits size format, both sizes. */
function writeHeader(out: Uint8Array, at: number, sizeFormat: number, regenerated: number, compressed: number): void {
  const sizeBits = sizeFormat <= 1 ? 10 : sizeFormat === 2 ? 14 : 18;
  // Up to 40 bits: built in a Number (exact to 2^53) and written byte by byte.
  let value = 2 + sizeFormat * 4 + regenerated * 16 + compressed * 2 ** (4 + sizeBits);
  const bytes = sizeFormat <= 1 ? 3 : sizeFormat === 2 ? 4 : 5;
  for (let i = 0; i < bytes; i++) {
    out[at + i] = value % 256;
    value = Math.floor(value / 256);
  }
}
