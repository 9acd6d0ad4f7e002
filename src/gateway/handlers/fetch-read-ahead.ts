/**
 * Fetch read-ahead, per connection: when a Fetch answer leaves a partition behind its high
 * watermark (a consumer catching up), the gateway reads that partition's next range from
 * Tributary at once, while the client is still decoding and handling the answer; the client's
 * next Fetch at exactly that offset (and with the same byte bound) is answered from it.
 *
 *   Fetch(o) ─► answer [o, n), n < high watermark ─► read [n, …) starts ─┐
 *   client decodes and handles [o, n)                                    │ (overlap)
 *   Fetch(n) ◄─ answered from the read already made ◄────────────────────┘
 *
 * Bounded: per connection, read-aheads whose byte bounds add up to at most
 * gatewayReadAheadBytesMax; each is dropped after gatewayReadAheadMaxAgeMs (then the next
 * Fetch reads afresh), when a Fetch does not take it (another offset or byte bound, or the
 * partition not asked for), and when the connection closes (its HTTP read aborted).
 */
import { gatewayReadAheadBytesMax, gatewayReadAheadMaxAgeMs } from "../../limits.ts";

interface Pending<T> {
  offset: number;
  maxBytes: number;
  answer: Promise<T>;
  abort: AbortController;
  timer: ReturnType<typeof setTimeout>;
}

export class FetchReadAhead<T> {
  readonly #pending = new Map<string, Pending<T>>();
  #bytes = 0;
  #closed = false;

  /** The read made ahead for this partition at exactly `offset` with `maxBytes`, removed; undefined when there is none. */
  take(partition: string, offset: number, maxBytes: number): Promise<T> | undefined {
    const pending = this.#pending.get(partition);
    if (pending === undefined) return undefined;
    this.#forget(partition, pending);
    if (pending.offset !== offset || pending.maxBytes !== maxBytes) {
      pending.abort.abort();
      return undefined;
    }
    return pending.answer;
  }

  /** Drops (and aborts) every read-ahead of a partition not in `keep`: a Fetch that did not ask for it. */
  dropOthers(keep: ReadonlySet<string>): void {
    for (const [partition, pending] of this.#pending) {
      if (keep.has(partition)) continue;
      this.#forget(partition, pending);
      pending.abort.abort();
    }
  }

  /** Starts reading `partition` from `offset` ahead of the client's next Fetch, unless the bound is reached. */
  start(partition: string, offset: number, maxBytes: number, read: (signal: AbortSignal) => Promise<T>): boolean {
    if (this.#closed || this.#pending.has(partition) || this.#bytes + maxBytes > gatewayReadAheadBytesMax) return false;
    const abort = new AbortController();
    const pending: Pending<T> = {
      offset,
      maxBytes,
      answer: read(abort.signal),
      abort,
      timer: setTimeout(() => {
        if (this.#pending.get(partition) !== pending) return;
        this.#forget(partition, pending);
        abort.abort();
      }, gatewayReadAheadMaxAgeMs),
    };
    pending.timer.unref?.();
    this.#pending.set(partition, pending);
    this.#bytes += maxBytes;
    return true;
  }

  /** Read-aheads held now (for tests). */
  get size(): number {
    return this.#pending.size;
  }

  /** The connection closed: every read-ahead aborted and dropped, none started any more. */
  close(): void {
    this.#closed = true;
    this.dropOthers(new Set());
  }

  #forget(partition: string, pending: Pending<T>): void {
    clearTimeout(pending.timer);
    this.#pending.delete(partition);
    this.#bytes -= pending.maxBytes;
  }
}
