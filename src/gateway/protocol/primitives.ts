/**
 * Kafka's primitive types on the wire (the protocol guide's "Protocol Primitive Types"), big
 * endian: fixed-width integers, unsigned varints for the compact (flexible-version) lengths,
 * strings and bytes with an int16/int32 length (−1 for null) or a compact length + 1 (0 for
 * null), UUIDs as 16 bytes. A reader past its end throws `Truncated`, which the codec turns
 * into an error value (decode.ts): nothing here escapes a connection.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Input ended before the value did, or a length or varint is impossible. */
export class MalformedInput extends Error {
  override readonly name = "MalformedInput";
}

export class ByteReader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #at: number;
  readonly #end: number;

  constructor(bytes: Uint8Array, at = 0, end = bytes.length) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#at = at;
    this.#end = end;
  }

  get offset(): number {
    return this.#at;
  }

  get remaining(): number {
    return this.#end - this.#at;
  }

  #take(count: number): number {
    if (count < 0 || this.#at + count > this.#end) throw new MalformedInput(`needs ${count} bytes at ${this.#at}, has ${this.#end - this.#at}`);
    const at = this.#at;
    this.#at += count;
    return at;
  }

  int8(): number {
    return this.#view.getInt8(this.#take(1));
  }
  int16(): number {
    return this.#view.getInt16(this.#take(2));
  }
  uint16(): number {
    return this.#view.getUint16(this.#take(2));
  }
  int32(): number {
    return this.#view.getInt32(this.#take(4));
  }
  uint32(): number {
    return this.#view.getUint32(this.#take(4));
  }
  int64(): bigint {
    return this.#view.getBigInt64(this.#take(8));
  }
  float64(): number {
    return this.#view.getFloat64(this.#take(8));
  }

  /** An unsigned varint of at most 32 bits (compact lengths, tags). */
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.#bytes[this.#take(1)]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) {
        if (value > 0xffffffff) break;
        return value;
      }
    }
    throw new MalformedInput(`unsigned varint too long before ${this.#at}`);
  }

  raw(count: number): Uint8Array {
    const at = this.#take(count);
    return this.#bytes.subarray(at, at + count);
  }

  /** A length: int16/int32 (−1 null) or compact uvarint − 1; null for null. */
  length(compact: boolean, wide: boolean): number | null {
    const length = compact ? this.uvarint() - 1 : wide ? this.int32() : this.int16();
    if (length < -1) throw new MalformedInput(`negative length ${length}`);
    return length === -1 ? null : length;
  }

  string(compact: boolean): string | null {
    const length = this.length(compact, false);
    if (length === null) return null;
    try {
      return decoder.decode(this.raw(length));
    } catch {
      throw new MalformedInput("a string is not UTF-8");
    }
  }

  bytes(compact: boolean): Uint8Array | null {
    const length = this.length(compact, true);
    return length === null ? null : this.raw(length);
  }
}

/** Raw byte runs at least this long are kept by reference, not copied (a fetch's record batches). */
const referencedBytesMin = 4096;

/**
 * Appends to a buffer that grows by doubling; a long raw run (a fetch's record batches) is
 * kept by reference between the buffer's segments instead of copied into it. `chunks` answers
 * the bytes written as those pieces (for a socket write), `finish` as one array.
 */
export class ByteWriter {
  #bytes: Uint8Array;
  #view: DataView;
  #at = 0;
  /** Finished pieces before the current buffer, and their length. */
  readonly #done: Uint8Array[] = [];
  #doneLength = 0;

  constructor(capacity = 256) {
    this.#bytes = new Uint8Array(capacity);
    this.#view = new DataView(this.#bytes.buffer);
  }

  get length(): number {
    return this.#doneLength + this.#at;
  }

  #room(count: number): number {
    if (this.#at + count > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#at + count));
      grown.set(this.#bytes.subarray(0, this.#at));
      this.#bytes = grown;
      this.#view = new DataView(grown.buffer);
    }
    const at = this.#at;
    this.#at += count;
    return at;
  }

  int8(value: number): void {
    const at = this.#room(1);
    this.#view.setInt8(at, value);
  }
  int16(value: number): void {
    const at = this.#room(2);
    this.#view.setInt16(at, value);
  }
  uint16(value: number): void {
    const at = this.#room(2);
    this.#view.setUint16(at, value);
  }
  int32(value: number): void {
    const at = this.#room(4);
    this.#view.setInt32(at, value);
  }
  uint32(value: number): void {
    const at = this.#room(4);
    this.#view.setUint32(at, value);
  }
  int64(value: bigint): void {
    const at = this.#room(8);
    this.#view.setBigInt64(at, value);
  }
  float64(value: number): void {
    const at = this.#room(8);
    this.#view.setFloat64(at, value);
  }

  uvarint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      const at = this.#room(1);
      this.#bytes[at] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    const at = this.#room(1);
    this.#bytes[at] = rest;
  }

  raw(bytes: Uint8Array): void {
    if (bytes.length >= referencedBytesMin) {
      this.#done.push(this.#bytes.subarray(0, this.#at), bytes);
      this.#doneLength += this.#at + bytes.length;
      this.#bytes = new Uint8Array(Math.max(256, this.#bytes.length - this.#at));
      this.#view = new DataView(this.#bytes.buffer);
      this.#at = 0;
      return;
    }
    const at = this.#room(bytes.length);
    this.#bytes.set(bytes, at);
  }

  length_(length: number | null, compact: boolean, wide: boolean): void {
    if (compact) this.uvarint(length === null ? 0 : length + 1);
    else if (wide) this.int32(length ?? -1);
    else this.int16(length ?? -1);
  }

  string(value: string | null, compact: boolean): void {
    if (value === null) return this.length_(null, compact, false);
    const bytes = encoder.encode(value);
    this.length_(bytes.length, compact, false);
    this.raw(bytes);
  }

  bytes(value: Uint8Array | null, compact: boolean): void {
    this.length_(value === null ? null : value.length, compact, true);
    if (value !== null) this.raw(value);
  }

  /** Non-null bytes given as pieces: one length for them all, then each piece (by reference when long, as `raw`). */
  bytePieces(pieces: readonly Uint8Array[], compact: boolean): void {
    let length = 0;
    for (const piece of pieces) length += piece.length;
    this.length_(length, compact, true);
    for (const piece of pieces) this.raw(piece);
  }

  /** Overwrites the first 4 bytes written (a frame's size). */
  patchFirstInt32(value: number): void {
    const first = this.#done[0] ?? this.#bytes;
    new DataView(first.buffer, first.byteOffset, 4).setInt32(0, value);
  }

  chunks(): Uint8Array[] {
    return [...this.#done, this.#bytes.subarray(0, this.#at)].filter((chunk) => chunk.length > 0);
  }

  finish(): Uint8Array {
    if (this.#done.length === 0) return this.#bytes.subarray(0, this.#at);
    const whole = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks()) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    return whole;
  }
}
