/**
 * Kafka's framing: every request and response is an int32 size followed by that many bytes.
 * `FrameReader` collects a connection's chunks into whole frames without copying more than it
 * must, and refuses a frame whose announced size is negative or over the bound before reading
 * it (a client cannot make the gateway buffer more than the bound).
 */
export type FrameResult = { ok: true; frames: Uint8Array[] } | { ok: false; error: string };

export class FrameReader {
  readonly #maxFrameBytes: number;
  #chunks: Uint8Array[] = [];
  #buffered = 0;

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received and not yet part of a whole frame. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  push(chunk: Uint8Array): FrameResult {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.#buffered < 4) break;
      const head = this.#peek(4);
      const size = new DataView(head.buffer, head.byteOffset, 4).getInt32(0);
      if (size < 0) return { ok: false, error: `a frame of negative size ${size}` };
      if (size > this.#maxFrameBytes) return { ok: false, error: `a frame of ${size} bytes, over the bound of ${this.#maxFrameBytes}` };
      if (this.#buffered < 4 + size) break;
      frames.push(this.#take(4 + size).subarray(4));
    }
    return { ok: true, frames };
  }

  #peek(count: number): Uint8Array {
    const first = this.#chunks[0]!;
    if (first.length >= count) return first.subarray(0, count);
    this.#merge();
    return this.#chunks[0]!.subarray(0, count);
  }

  #take(count: number): Uint8Array {
    let first = this.#chunks[0]!;
    if (first.length < count) {
      this.#merge();
      first = this.#chunks[0]!;
    }
    const taken = first.subarray(0, count);
    if (first.length === count) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(count);
    this.#buffered -= count;
    return taken;
  }

  #merge(): void {
    const merged = new Uint8Array(this.#buffered);
    let at = 0;
    for (const chunk of this.#chunks) {
      merged.set(chunk, at);
      at += chunk.length;
    }
    this.#chunks = [merged];
  }
}
