/**
 * A minimal DevTools protocol client for the Worker's isolate, at wrangler's --inspector-port
 * (which only accepts a local Origin): the profiler (profile.ts) and the heap size (soak.ts).
 */

/** Long enough for Profiler.stop to hand over a profile of a minute's samples. */
const callTimeoutMs = 60_000;

/** A minimal DevTools protocol client: numbered calls, answers matched by id. */
export async function connect(url: string, signal: AbortSignal) {
  // Node's WebSocket (undici) takes headers in its second argument; the inspector refuses a request without a local Origin.
  const socket = new WebSocket(url, { headers: { origin: "http://127.0.0.1" } } as unknown as string[]);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve());
    socket.addEventListener("error", () => reject(new Error(`cannot open the inspector at ${url}`)));
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  // A closed socket answers nothing more: every call still waiting fails rather than hang.
  socket.addEventListener("close", () => {
    for (const waiting of pending.values()) waiting.reject(new Error("the inspector closed its connection"));
    pending.clear();
  });
  signal.addEventListener("abort", () => socket.close(), { once: true });
  return {
    /** A DevTools call; fails after `timeoutMs` without an answer (the runtime may not answer an idle isolate's inspector). */
    call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = callTimeoutMs): Promise<T> {
      const id = ++nextId;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`the inspector did not answer ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        const settle = <V>(done: (value: V) => void) => (value: V) => {
          clearTimeout(timer);
          done(value);
        };
        pending.set(id, { resolve: settle(resolve as (value: unknown) => void), reject: settle(reject) });
      });
    },
    close: () => socket.close(),
  };
}

export type Inspector = Awaited<ReturnType<typeof connect>>;

/**
 * The bytes the isolate holds live: its heap's objects and the backing stores of its
 * ArrayBuffers (record batches live there, outside the JavaScript heap), after a full garbage
 * collection, so the figure is what is held, not what has not been collected yet.
 */
export async function liveHeapBytes(inspector: Inspector): Promise<number> {
  await inspector.call("HeapProfiler.collectGarbage", {}, 10_000);
  const usage = await inspector.call<{ usedSize: number; backingStorageSize?: number }>("Runtime.getHeapUsage", {}, 10_000);
  return usage.usedSize + (usage.backingStorageSize ?? 0);
}
