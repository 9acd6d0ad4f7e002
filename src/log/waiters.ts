/**
 * Long-poll waiters of one partition: fetches that found no record and wait for an append.
 * Bounded (limits.waitersPerPartitionMax): past the bound the oldest waiter is let go. A
 * waiter that is let go, times out or is woken resolves — never rejects — and the caller
 * reads again, so a released waiter is answered with whatever is there (often nothing).
 */
export class Waiters {
  readonly #max: number;
  readonly #pending = new Set<() => void>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Resolves when woken, after `timeoutMs`, or when let go to make room; never rejects. */
  wait(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#pending.size >= this.#max) this.#releaseOldest();
      const release = () => {
        clearTimeout(timer);
        this.#pending.delete(release);
        resolve();
      };
      const timer = setTimeout(release, timeoutMs);
      this.#pending.add(release);
    });
  }

  /** Wakes every waiter (after an append, or when the object must let them all go). */
  wakeAll(): void {
    for (const release of [...this.#pending]) release();
  }

  #releaseOldest(): void {
    const oldest = this.#pending.values().next();
    if (!oldest.done) oldest.value();
  }
}
