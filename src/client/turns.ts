/** Event-loop waits of the producer: a cancellable timer that is a true 0 ms when asked for none, and the next turn. */

/**
 * Runs `task` after `ms`; answers how to cancel it. No wait at all is the next turn of the
 * event loop (setImmediate where there is one), not setTimeout's: Node holds a 0 ms timer
 * for at least 1 ms, which a lone record with `lingerMs: 0` would pay on every send.
 */
export function after(ms: number, task: () => void): () => void {
  if (ms === 0 && typeof setImmediate === "function") {
    const immediate = setImmediate(task);
    return () => clearImmediate(immediate);
  }
  const timer = setTimeout(task, ms);
  return () => clearTimeout(timer);
}

/** The next turn of the event loop (I/O callbacks run first): setImmediate where there is one. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)));
}
