import { TributaryError } from "../errors.ts";

/** One item's outcome inside a group: written (its answer) or refused (its error, nothing of it written). */
export type Settled<Answer> = { ok: true; value: Answer } | { ok: false; error: unknown };

/** Bounds on the appends that wait for the storage write in progress (src/limits.ts). */
export interface GroupCommitBounds {
  itemsMax: number;
  bytesMax: number;
}

export interface GroupCommitHost<Item, Answer> {
  /**
   * Writes a group of items in one synchronous turn — one storage transaction — and answers
   * each item's outcome in order. Must not throw for one item's refusal: that item's error
   * is its outcome.
   */
  write(items: readonly Item[]): Settled<Answer>[];
  /** Resolves once everything written so far is durable (the storage write in progress). */
  flush(): Promise<void>;
}

interface Waiting<Item, Answer> {
  item: Item;
  bytes: number;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/** What the queue holds now and has done, for the object's debug statistics. */
export interface GroupCommitStats {
  waitingItems: number;
  waitingBytes: number;
  /** Groups written: storage transactions of appends. */
  groups: number;
  /** Items written (or refused) in those groups. */
  items: number;
}

/**
 * Group commit of one partition's appends. An append that arrives while no storage write is
 * in progress is written at once, alone; appends that arrive while one is in progress wait,
 * and are written together — in one synchronous turn, so one storage transaction — as soon
 * as it is durable. Each append is answered once its own write is durable. Under load this
 * turns N appends into one transaction (one write of the log's bounds instead of N) while
 * an idle partition adds no delay. The waiting queue is bounded in items and bytes: past
 * either bound an append is refused with the retriable BROKER_BUSY, nothing written, rather
 * than queueing without bound (an overloaded partition object, issue 8). Pure: the host
 * supplies the write and the flush.
 */
export class GroupCommit<Item, Answer> {
  readonly #bounds: GroupCommitBounds;
  readonly #host: GroupCommitHost<Item, Answer>;
  #waiting: Waiting<Item, Answer>[] = [];
  #waitingBytes = 0;
  #writing = false;
  #groups = 0;
  #items = 0;

  constructor(bounds: GroupCommitBounds, host: GroupCommitHost<Item, Answer>) {
    this.#bounds = bounds;
    this.#host = host;
  }

  stats(): GroupCommitStats {
    return { waitingItems: this.#waiting.length, waitingBytes: this.#waitingBytes, groups: this.#groups, items: this.#items };
  }

  /** Writes `item` (of `bytes` bytes) now or with the next group; resolves with its answer once durable. */
  submit(item: Item, bytes: number): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const waiting = { item, bytes, resolve, reject };
      if (!this.#writing) {
        void this.#writeGroup([waiting]);
        return;
      }
      const { itemsMax, bytesMax } = this.#bounds;
      if (this.#waiting.length >= itemsMax || this.#waitingBytes + bytes > bytesMax) {
        reject(
          new TributaryError(
            "BROKER_BUSY",
            `this partition has ${this.#waiting.length} appends (${this.#waitingBytes} bytes) waiting for its storage (bounds ${itemsMax}, ${bytesMax} bytes); retry shortly`,
          ),
        );
        return;
      }
      this.#waiting.push(waiting);
      this.#waitingBytes += bytes;
    });
  }

  async #writeGroup(group: Waiting<Item, Answer>[]): Promise<void> {
    this.#writing = true;
    this.#groups++;
    this.#items += group.length;
    let outcomes: Settled<Answer>[];
    try {
      outcomes = this.#host.write(group.map((waiting) => waiting.item));
      await this.#host.flush();
    } catch (error) {
      outcomes = group.map(() => ({ ok: false, error }));
    }
    this.#writing = false;
    group.forEach((waiting, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
    // The next group is written in this same turn: no append that arrives later overtakes it.
    if (this.#waiting.length > 0) {
      const next = this.#waiting;
      this.#waiting = [];
      this.#waitingBytes = 0;
      void this.#writeGroup(next);
    }
  }
}
