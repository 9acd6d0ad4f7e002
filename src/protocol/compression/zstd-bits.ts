/** The zstd encoder's bit writer and FSE coding tables (zstd-encode.ts for sequences, zstd-huffman.ts for literals and their weights). */

/** Writes bits forward, little-endian; the decoder reads them back from the end. */
export class BitWriter {
  bytes: Uint8Array;
  at: number;
  #bits = 0;
  #count = 0;
  constructor(bytes: Uint8Array, at: number) {
    this.bytes = bytes;
    this.at = at;
  }
  /** Adds the low `count` bits of `value` (count ≤ 24). */
  add(value: number, count: number): void {
    if (count === 0) return;
    this.#bits = (this.#bits | ((value & ((1 << count) - 1)) << this.#count)) >>> 0;
    this.#count += count;
    while (this.#count >= 8) {
      this.bytes[this.at++] = this.#bits;
      this.#bits >>>= 8;
      this.#count -= 8;
    }
  }
  /** Pads the last byte with zeros (a forward field, no closing bit); answers the end. */
  pad(): number {
    if (this.#count > 0) this.bytes[this.at++] = this.#bits;
    this.#bits = 0;
    this.#count = 0;
    return this.at;
  }
  /** Adds the closing 1 bit and pads the last byte. */
  close(): number {
    this.add(1, 1);
    if (this.#count > 0) this.bytes[this.at++] = this.#bits;
    return this.at;
  }
}

export function highBit(value: number): number {
  return 31 - Math.clz32(value);
}

/** An FSE encoding table (zstd's FSE_buildCTable) for a normalized distribution. */
export interface FseTable {
  accuracyLog: number;
  states: Uint16Array;
  deltaBits: Int32Array;
  deltaState: Int32Array;
}

export function buildFseTable(norm: readonly number[], accuracyLog: number): FseTable {
  const size = 1 << accuracyLog;
  const symbols = new Uint8Array(size);
  const cumulative = new Int32Array(norm.length + 1);
  let high = size - 1;
  for (let s = 0; s < norm.length; s++) {
    if (norm[s] === -1) {
      cumulative[s + 1] = cumulative[s]! + 1;
      symbols[high--] = s;
    } else {
      cumulative[s + 1] = cumulative[s]! + norm[s]!;
    }
  }
  const step = (size >>> 1) + (size >>> 3) + 3;
  let position = 0;
  for (let s = 0; s < norm.length; s++) {
    for (let i = 0; i < norm[s]!; i++) {
      symbols[position] = s;
      do position = (position + step) & (size - 1);
      while (position > high);
    }
  }
  const states = new Uint16Array(size);
  const next = cumulative.slice();
  for (let u = 0; u < size; u++) states[next[symbols[u]!]!++] = size + u;
  const deltaBits = new Int32Array(norm.length);
  const deltaState = new Int32Array(norm.length);
  let total = 0;
  for (let s = 0; s < norm.length; s++) {
    const count = norm[s]!;
    if (count === -1 || count === 1) {
      deltaBits[s] = (accuracyLog << 16) - size;
      deltaState[s] = total - 1;
      total++;
    } else if (count > 1) {
      const bitsOut = accuracyLog - highBit(count - 1);
      deltaBits[s] = (bitsOut << 16) - (count << bitsOut);
      deltaState[s] = total - count;
      total += count;
    }
  }
  return { accuracyLog, states, deltaBits, deltaState };
}

export function initState(table: FseTable, symbol: number): number {
  const bitsOut = (table.deltaBits[symbol]! + (1 << 15)) >>> 16;
  const value = (bitsOut << 16) - table.deltaBits[symbol]!;
  return table.states[(value >> bitsOut) + table.deltaState[symbol]!]!;
}

export function encodeSymbol(writer: BitWriter, table: FseTable, state: number, symbol: number): number {
  const bitsOut = (state + table.deltaBits[symbol]!) >>> 16;
  writer.add(state, bitsOut);
  return table.states[(state >>> bitsOut) + table.deltaState[symbol]!]!;
}
