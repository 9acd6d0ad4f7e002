/**
 * The client's streams against a real `wrangler dev` that is restarted three times while
 * 100,000 records are produced: a partition stream over SSE, one over a WebSocket (Node 22's
 * global WebSocket) and a topic stream each deliver every record exactly once, in order —
 * they reconnect by themselves (Last-Event-ID, or the next offset) each time the server comes
 * back on the same port and state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary, type ConsumedMessage } from "../../src/client/index.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const recordCount = 100_000;
const restarts = 3;
const topic = "stream-restarts";

/** Collects a stream's records until it has `count`, checking each is the next one expected. */
function collect(stream: AsyncIterable<ConsumedMessage>, count: number) {
  const seen = { count: 0, problems: [] as string[] };
  const next = new Map<number, number>();
  const done = (async () => {
    for await (const record of stream) {
      const expected = next.get(record.partition) ?? 0;
      if (record.offset !== expected) seen.problems.push(`partition ${record.partition}: offset ${record.offset} after ${expected - 1}`);
      const value = new TextDecoder().decode(record.value!);
      if (!value.startsWith(`${record.partition}:`)) seen.problems.push(`offset ${record.offset} holds ${value}`);
      next.set(record.partition, record.offset + 1);
      if (++seen.count === count) return;
    }
  })();
  done.catch(() => {}); // awaited by the test; a failure before that is reported there
  return { seen, done };
}

async function until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("streams across wrangler dev restarts", () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startWranglerDev();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it(`deliver ${recordCount.toLocaleString("en")} records exactly once and in order through ${restarts} restarts (SSE, WebSocket, whole topic)`, async () => {
    // Quick reconnects: the outage is short; the policy is still the client's one backoff.
    const client = new Tributary({ url: server.url, retry: { initialBackoffMs: 50, maxBackoffMs: 500 }, logLevel: "nothing" });
    await client.admin().topics.create({ name: topic, partitions: 2 });
    const stop = new AbortController();
    const perPartition = recordCount / 2;
    const sse = collect(client.topic(topic).partition(0).stream({ from: "earliest", transport: "sse", signal: stop.signal }), perPartition);
    const socket = collect(client.topic(topic).partition(0).stream({ from: "earliest", transport: "websocket", signal: stop.signal }), perPartition);
    const whole = collect(client.topic(topic).stream({ from: "earliest", signal: stop.signal }), recordCount);

    const slices = restarts + 1;
    const perSlice = perPartition / slices;
    for (let slice = 0; slice < slices; slice++) {
      const messages = Array.from({ length: perSlice * 2 }, (_, i) => {
        const partition = i % 2;
        return { partition, value: `${partition}:${slice * perSlice + Math.floor(i / 2)}` };
      });
      await client.topic(topic).produce(messages);
      if (slice === slices - 1) break;
      // Let the streams get going on this slice, then take the server away under them.
      const before = slice * perSlice;
      await until(() => sse.seen.count > before && socket.seen.count > before && whole.seen.count > 2 * before, "every stream to receive this slice", 30_000);
      await server.halt();
      await server.resume();
    }
    try {
      await until(() => sse.seen.count === perPartition && socket.seen.count === perPartition && whole.seen.count === recordCount, "every record", 60_000);
    } finally {
      stop.abort(new Error("the test is over"));
    }
    await Promise.all([sse.done, socket.done, whole.done]);
    expect(sse.seen.problems).toEqual([]);
    expect(socket.seen.problems).toEqual([]);
    expect(whole.seen.problems).toEqual([]);
  });
});
