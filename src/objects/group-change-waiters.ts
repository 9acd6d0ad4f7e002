import { TributaryError } from "../errors.ts";
import { classicWaitMsMax } from "../limits.ts";

/**
 * Waiting polls of one group: each waits until its condition holds (the member's assignment
 * is about to change) or its time is up. The coordinator calls `wake` after every change to
 * the group, and each waiter's condition is checked then.
 *
 * Bounded: past `max` the oldest waiter is answered `false` (as on a timeout), so that its
 * poll goes on waiting on its partitions alone. Unlike a re-waiting loop, a released waiter
 * never comes back to push another out.
 */
export class ChangeWaiters {
  readonly #max: number;
  readonly #pending = new Set<{ changed: () => boolean; settle: (changed: boolean) => void }>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** True as soon as `changed()` holds (checked now and at every wake), false after `timeoutMs`. */
  wait(changed: () => boolean, timeoutMs: number): Promise<boolean> {
    if (changed()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      if (this.#pending.size >= this.#max) this.#releaseOldest();
      const waiter = {
        changed,
        settle: (result: boolean) => {
          clearTimeout(timer);
          this.#pending.delete(waiter);
          resolve(result);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), timeoutMs);
      this.#pending.add(waiter);
    });
  }

  /** Checks every waiter's condition; those that hold are answered `true`. */
  wake(): void {
    for (const waiter of [...this.#pending]) if (waiter.changed()) waiter.settle(true);
  }

  #releaseOldest(): void {
    const oldest = this.#pending.values().next();
    if (!oldest.done) oldest.value.settle(false);
  }
}

/** A held classic call waits at most classicWaitMsMax at a time. */
export function clampWait(waitMs: number): number {
  return Math.max(0, Math.min(Number.isFinite(waitMs) ? waitMs : 0, classicWaitMsMax));
}

/** A held request's answer as a waiter sees it: "waiting" until it has one (an error is an answer too). */
export function settledAnswer<T>(answer: () => T | "waiting"): T | "waiting" | "failed" {
  try {
    return answer();
  } catch (error) {
    if (error instanceof TributaryError) return "failed";
    throw error;
  }
}
