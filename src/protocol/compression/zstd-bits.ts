/** The zstd encoder's bit writer (zstd-encode.ts for sequences, zstd-huffman.ts for literals). */

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
  /** Adds the closing 1 bit and pads the last byte. */
  close(): number {
    this.add(1, 1);
    if (this.#count > 0) this.bytes[this.at++] = this.#bits;
    return this.at;
  }
}
