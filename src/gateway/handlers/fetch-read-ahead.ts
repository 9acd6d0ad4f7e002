/**
 * Fetch read-ahead, per connection: when a Fetch answer leaves a partition behind its high
 * watermark (a consumer catching up), the gateway reads that partition's next range from
 * Tributary at once, while the client is still decoding and handling the answer; the client's
 * next Fetch at exactly that offset (and with the same byte bound) is answered from it, and
 * with the reads after it that have answered too, as far as the Fetch's byte bound allows. Up to
 * gatewayReadAheadDepth reads are chained per partition: each read, once answered, starts the
 * one after it, so that a read slower than the client's handling of one answer (a busy
 * machine) still finishes before the client asks for it.
 *
 *   Fetch(o) ─► answer [o, n), n < high watermark ─► read [n, m) ─► read [m, k) ─┐
 *   client decodes and handles [o, n)                                            │ (overlap)
 *   Fetch(n) ◄─ answered from [n, m) ◄────────────────────────────────────────────┘
 *   Fetch(m) ◄─ answered from [m, k), and [k, …) is read …
 *
 * A read made ahead may be larger than the client's Fetch bound (the caller chooses its size):
 * each Fetch is then answered with the read's next part that fits its bound (`split`: whole
 * batches), the rest kept for the Fetches after it. A request to Tributary costs milliseconds
 * whatever it carries, so a few large reads keep a consumer catching up fed where a chain of
 * Fetch-sized ones, each started only when the one before answered, did not (bench/RESULTS.md).
 *
 * Bounded: per connection, read-aheads whose byte bounds add up to at most
 * gatewayReadAheadBytesMax, at most gatewayReadAheadDepth per partition; a partition's reads
 * are dropped after gatewayReadAheadMaxAgeMs (then the next Fetch reads afresh), when a Fetch
 * does not take the first (another offset or byte bound, or the partition not asked for), and
 * when the connection closes (their HTTP reads aborted).
 */
import { gatewayReadAheadBytesMax, gatewayReadAheadDepth, gatewayReadAheadMaxAgeMs } from "../../limits.ts";

interface Pending<T> {
  /** Where what is left of it starts: a Fetch taking part of it moves this on. */
  offset: number;
  answer: Promise<T>;
  abort: AbortController;
  timer: ReturnType<typeof setTimeout>;
  /** Whether it answered, and with what (what is left of it, once a Fetch took part). */
  answered: boolean;
  value?: T;
  /** Where the read after this one starts, once it answered and there is more to read. */
  after?: number;
}

/** An answer's first part within a byte bound, and where what is left starts. */
export interface Split<T> {
  head: T;
  rest?: { offset: number; answer: T };
}

/**
 * `answer` (of a read from `offset`) cut to at most `room` bytes, in whole batches: the whole
 * answer when it fits; with `firstAlwaysComes`, at least its first batch (a Fetch's own answer,
 * as Kafka's); undefined when nothing fits. An answer that cannot be cut there may come whole
 * with no rest: the caller's next offset then does not meet the chain's, which reads afresh.
 */
export type Splitter<T> = (answer: T, offset: number, room: number, firstAlwaysComes: boolean) => Split<T> | undefined;

/** One partition's chain of reads, oldest first, all with the same byte bounds and reader. */
interface Chain<T> {
  /** The client's Fetch bound the reads serve. */
  maxBytes: number;
  /** Each read's own bound (at least maxBytes), counted toward gatewayReadAheadBytesMax. */
  readBytes: number;
  read: (offset: number, signal: AbortSignal) => Promise<T>;
  /** Where to read on after an answer of a read from `offset`; undefined: nothing more to read ahead. */
  after: (answer: T, offset: number) => number | undefined;
  reads: Pending<T>[];
}

export class FetchReadAhead<T> {
  readonly #chains = new Map<string, Chain<T>>();
  readonly #split: Splitter<T>;
  #bytes = 0;
  #closed = false;

  constructor(split: Splitter<T>) {
    this.#split = split;
  }

  /**
   * The part of the read made ahead for this partition at exactly `offset` that a Fetch bound to
   * `maxBytes` takes, once it answered (what is left stays for the next Fetch); undefined when
   * there is none.
   */
  take(partition: string, offset: number, maxBytes: number): Promise<T> | undefined {
    const chain = this.#chains.get(partition);
    const first = chain?.reads[0];
    if (chain === undefined || first === undefined) return undefined;
    if (first.offset !== offset || chain.maxBytes !== maxBytes) {
      this.#drop(partition);
      return undefined;
    }
    return first.answer.then((answer) => {
      // Dropped meanwhile (its read aborted or aged out): the part of what it read that the Fetch takes, if any.
      if (this.#chains.get(partition) !== chain || chain.reads[0] !== first) return this.#split(answer, offset, maxBytes, true)?.head ?? answer;
      return this.#takeFrom(partition, chain, first, maxBytes, true)!;
    });
  }

  /**
   * The next part of the partition's reads made ahead, when it starts at exactly `offset` (for
   * a Fetch bound to `maxBytes`), has already answered and has whole batches within `room`: for
   * a Fetch answer that has room for more (nothing is waited for). Undefined, and nothing
   * taken, otherwise.
   */
  takeAnswered(partition: string, offset: number, maxBytes: number, room: number): T | undefined {
    const chain = this.#chains.get(partition);
    const first = chain?.reads[0];
    if (chain === undefined || first === undefined || !first.answered || first.offset !== offset || chain.maxBytes !== maxBytes) return undefined;
    return this.#takeFrom(partition, chain, first, room, false);
  }

  /** Drops (and aborts) every read-ahead of a partition not in `keep`: a Fetch that did not ask for it. */
  dropOthers(keep: ReadonlySet<string>): void {
    for (const partition of [...this.#chains.keys()]) if (!keep.has(partition)) this.#drop(partition);
  }

  /**
   * Starts reading `partition` from `offset` ahead of the client's next Fetch (bound to
   * `maxBytes`; each read bound to `readBytes`, which the caller makes at least that), unless it
   * is read ahead already or the bound is reached; each answer `after` says more is left to read starts the next read,
   * up to gatewayReadAheadDepth ahead.
   */
  start(partition: string, offset: number, maxBytes: number, read: Chain<T>["read"], after: Chain<T>["after"] = () => undefined, readBytes = maxBytes): boolean {
    if (this.#closed || this.#chains.has(partition) || this.#bytes + readBytes > gatewayReadAheadBytesMax) return false;
    const chain: Chain<T> = { maxBytes, readBytes, read, after, reads: [] };
    this.#chains.set(partition, chain);
    this.#add(partition, chain, offset);
    return true;
  }

  /** Read-aheads held now, every partition's (for tests). */
  get size(): number {
    let size = 0;
    for (const chain of this.#chains.values()) size += chain.reads.length;
    return size;
  }

  /** The connection closed: every read-ahead aborted and dropped, none started any more. */
  close(): void {
    this.#closed = true;
    this.dropOthers(new Set());
  }

  /** The part of the chain's first read (answered) within `room`; the read is removed once nothing is left of it. */
  #takeFrom(partition: string, chain: Chain<T>, first: Pending<T>, room: number, firstAlwaysComes: boolean): T | undefined {
    const split = this.#split(first.value as T, first.offset, room, firstAlwaysComes);
    if (split === undefined) return undefined;
    if (split.rest === undefined) {
      this.#shift(partition, chain);
    } else {
      first.offset = split.rest.offset;
      first.value = split.rest.answer;
    }
    return split.head;
  }

  #add(partition: string, chain: Chain<T>, offset: number): void {
    const abort = new AbortController();
    const pending: Pending<T> = {
      offset,
      answered: false,
      answer: chain.read(offset, abort.signal),
      abort,
      timer: setTimeout(() => {
        if (this.#chains.get(partition) === chain) this.#drop(partition);
      }, gatewayReadAheadMaxAgeMs),
    };
    pending.timer.unref?.();
    chain.reads.push(pending);
    this.#bytes += chain.readBytes;
    pending.answer.then(
      (answer) => {
        pending.answered = true;
        pending.value = answer;
        pending.after = chain.after(answer, offset);
        if (this.#chains.get(partition) === chain && chain.reads.includes(pending)) this.#extend(partition, chain);
      },
      () => {},
    );
  }

  /** Starts the read after the chain's last one, when that one answered with more to read and the bounds allow. */
  #extend(partition: string, chain: Chain<T>): void {
    const last = chain.reads.at(-1);
    if (this.#closed || last?.after === undefined || chain.reads.length >= gatewayReadAheadDepth || this.#bytes + chain.readBytes > gatewayReadAheadBytesMax) return;
    this.#add(partition, chain, last.after);
  }

  /** Removes the chain's first read (taken by Fetches) and reads on after the last. */
  #shift(partition: string, chain: Chain<T>): void {
    this.#release(chain, chain.reads.shift()!);
    if (chain.reads.length === 0) this.#chains.delete(partition);
    else this.#extend(partition, chain);
  }

  #drop(partition: string): void {
    const chain = this.#chains.get(partition);
    if (chain === undefined) return;
    this.#chains.delete(partition);
    for (const pending of chain.reads.splice(0)) {
      this.#release(chain, pending);
      pending.abort.abort();
    }
  }

  #release(chain: Chain<T>, pending: Pending<T>): void {
    clearTimeout(pending.timer);
    this.#bytes -= chain.readBytes;
  }
}
