import { BatchFormatError } from "../record-batch.ts";

/**
 * Why a compressed batch cannot be read: its compressed bytes are not valid for its codec
 * (`corrupt`), they inflate past the caller's bound (`too-large`: a decompression bomb, or
 * simply more than a batch may hold), or the codec bits name no codec (`unknown-codec`).
 * A BatchFormatError, so every path that refuses a malformed batch refuses these too; the
 * produce paths tell them apart (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE).
 */
export type CompressionFailure = "corrupt" | "too-large" | "unknown-codec";

export class CompressionError extends BatchFormatError {
  override readonly name: string = "CompressionError";
  readonly failure: CompressionFailure;
  constructor(failure: CompressionFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

export function corrupt(codec: string, message: string): never {
  throw new CompressionError("corrupt", `${codec}: ${message}`);
}

export function tooLarge(codec: string, bytesMax: number): never {
  throw new CompressionError("too-large", `${codec}: the records inflate past ${bytesMax} bytes`);
}

/** A growable output buffer that refuses to grow past `bytesMax` (the decompression bound). */
export class BoundedOutput {
  bytes: Uint8Array;
  length = 0;
  readonly codec: string;
  readonly bytesMax: number;
  constructor(codec: string, bytesMax: number, initial: number) {
    this.codec = codec;
    this.bytesMax = bytesMax;
    this.bytes = new Uint8Array(Math.max(64, Math.min(initial, bytesMax)));
  }

  /** Makes room for `more` bytes after `length`, or throws `too-large`. */
  reserve(more: number): void {
    const needed = this.length + more;
    if (needed <= this.bytes.length) return;
    if (needed > this.bytesMax) tooLarge(this.codec, this.bytesMax);
    const grown = new Uint8Array(Math.min(this.bytesMax, Math.max(needed, this.bytes.length * 2)));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
