/**
 * A server that goes away and comes back (issue 12, item 7): a refused connection is its own
 * error, every retry is a logged line without the token, and consumers — a group member and a
 * partition follower — ride out the outage instead of giving up after `retry.retries`.
 */
import { describe, expect, it } from "vitest";
import { isRetriable, isTributaryError, Tributary, type ConsumedMessage, type LogFields, type Logger } from "../../../src/client/index.ts";
import { fakeClient, text } from "./support/client.ts";

interface Line {
  level: string;
  message: string;
  fields?: LogFields;
}

function recordingLogger(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("a refused connection", () => {
  it("is a retriable NETWORK_EXCEPTION naming the reason and the server, not REQUEST_TIMED_OUT", async () => {
    const { server, client } = fakeClient({ retry: { retries: 0 } });
    server.down = true;
    const error = await client.admin().topics.list().catch((e: unknown) => e);
    if (!isTributaryError(error, "NETWORK_EXCEPTION")) throw new Error(`expected NETWORK_EXCEPTION, got ${String(error)}`);
    expect(error.message).toBe("GET /v1/topics: connection refused at http://tributary.test");
    expect(error.data.reason).toBe("ECONNREFUSED");
    expect(error.data.server).toBe("http://tributary.test");
    expect(isRetriable(error)).toBe(true);
  });

  it("a failure without a system code (a browser's or a Worker's fetch) is a NETWORK_EXCEPTION too", async () => {
    const client = new Tributary({ url: "http://tributary.test", fetch: async () => { throw new TypeError("Failed to fetch"); }, retry: { retries: 0 } });
    const error = await client.admin().topics.list().catch((e: unknown) => e);
    if (!isTributaryError(error, "NETWORK_EXCEPTION")) throw new Error(`expected NETWORK_EXCEPTION, got ${String(error)}`);
    expect(error.data.reason).toBeUndefined();
    expect(error.message).toContain("no answer from http://tributary.test (TypeError: Failed to fetch)");
  });
});

describe("retry lines", () => {
  it("logs one line per retry, with the request, the error, the attempt and the next delay", async () => {
    const { logger, lines } = recordingLogger();
    const { server, client } = fakeClient({ logger, logLevel: "debug", retry: { retries: 5, initialBackoffMs: 1, maxBackoffMs: 1, jitter: 0 } });
    server.createTopic("orders", 1);
    // Three refused connections, then answers: the client's 1 ms retries cannot outrun a poll of the outage.
    server.downForRequests = 3;
    expect((await client.admin().topics.list()).map((topic) => topic.name)).toEqual(["orders"]);
    expect(server.refused).toHaveLength(3);
    const retries = lines.filter((line) => line.message.startsWith("retrying "));
    expect(retries.length).toBe(3);
    expect(retries[0]).toEqual({
      level: "info",
      message: "retrying GET /v1/topics after NETWORK_EXCEPTION: connection refused at http://tributary.test (attempt 1, next in 1 ms)",
      fields: {
        request: "GET /v1/topics",
        code: "NETWORK_EXCEPTION",
        detail: "connection refused at http://tributary.test",
        reason: "ECONNREFUSED",
        server: "http://tributary.test",
        attempt: 1,
        delayMs: 1,
      },
    });
    expect(retries.map((line) => line.fields?.attempt)).toEqual(retries.map((_, index) => index + 1));
  });

  it("names a server's retriable answer by its code", async () => {
    const { logger, lines } = recordingLogger();
    const { server, client } = fakeClient({ logger, logLevel: "info" });
    server.createTopic("orders", 1);
    server.failNext((request) => request.path === "/v1/topics", { kind: "error", status: 503, body: { error: { code: "BROKER_BUSY", message: "busy" } } });
    await client.admin().topics.list();
    expect(lines.map((line) => line.message)).toEqual([expect.stringMatching(/^retrying GET \/v1\/topics after BROKER_BUSY: busy \(attempt 1, next in \d+ ms\)$/)]);
  });

  it("never holds the token", async () => {
    const token = "tok-very-secret-1234567890";
    const { logger, lines } = recordingLogger();
    const { server, client } = fakeClient({ token, logger, logLevel: "debug" });
    server.token = token;
    server.createTopic("orders", 1);
    server.down = true;
    const produced = client.topic("orders").produce([{ value: "a" }]);
    await until(() => server.refused.length >= 2, "two refused requests");
    server.down = false;
    await produced;
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(lines)).not.toContain(token);
  });

  it("by default only a call retrying for 2 s or more reaches the logger (as warnings)", async () => {
    const { logger, lines } = recordingLogger();
    const { server, client } = fakeClient({ logger, retry: { retries: 3 } });
    server.createTopic("orders", 1);
    server.down = true;
    await client.admin().topics.list().catch(() => undefined);
    expect(server.refused.length).toBe(4);
    expect(lines).toEqual([]); // 3 quick retries: info, below the default "warn"
  });

  it("a logger that throws does not break the call", async () => {
    const throwing = () => {
      throw new Error("broken logger");
    };
    const { server, client } = fakeClient({ logger: { debug: throwing, info: throwing, warn: throwing, error: throwing }, logLevel: "debug" });
    server.createTopic("orders", 1);
    server.failNext((request) => request.path === "/v1/topics", { kind: "drop-before" });
    expect(await client.admin().topics.list()).toHaveLength(1);
  });

  it("refuses a logger without the four levels and an unknown logLevel", () => {
    expect(() => new Tributary({ url: "http://tributary.test", logger: {} as Logger })).toThrow(TypeError);
    expect(() => new Tributary({ url: "http://tributary.test", logLevel: "loud" as "info" })).toThrow(RangeError);
  });
});

describe("a partition follower (topic.fetch with retryForever)", () => {
  it("keeps retrying past retry.retries while the server is down, and reads once it is back", async () => {
    const { server, client } = fakeClient({ retry: { retries: 2 } });
    server.createTopic("orders", 1);
    await client.topic("orders").produce([{ value: "a", partition: 0 }]);
    server.down = true;
    const stop = new AbortController();
    const fetched = client.topic("orders").fetch(0, 0, { retryForever: true, signal: stop.signal });
    await until(() => server.refused.length >= 6, "six refused fetches");
    server.down = false;
    const result = await fetched;
    expect(result.records.map((record) => text(record.value))).toEqual(["a"]);
  });

  it("without retryForever gives up after retry.retries", async () => {
    const { server, client } = fakeClient({ retry: { retries: 2 } });
    server.createTopic("orders", 1);
    server.down = true;
    const error = await client.topic("orders").fetch(0, 0).catch((e: unknown) => e);
    expect(isTributaryError(error, "NETWORK_EXCEPTION")).toBe(true);
    expect(server.refused.length).toBe(3);
  });

  it("stops when its signal aborts", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    server.down = true;
    const stop = new AbortController();
    const fetched = client.topic("orders").fetch(0, 0, { retryForever: true, signal: stop.signal });
    await until(() => server.refused.length >= 2, "two refused fetches");
    stop.abort(new Error("interrupted"));
    await expect(fetched).rejects.toThrow("interrupted");
  });
});

describe("a group consumer while its server is down", () => {
  async function running(retries: number) {
    const { logger, lines } = recordingLogger();
    const setup = fakeClient({ logger, logLevel: "info", retry: { retries } });
    setup.server.createTopic("orders", 2);
    const consumer = setup.client.consumer({ groupId: "g", maxWaitTimeInMs: 0 });
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message) });
    const produce = (values: string[]) => setup.client.topic("orders").produce(values.map((value, i) => ({ value, partition: i % 2 })));
    return { ...setup, consumer, seen, lines, produce };
  }

  it("keeps polling past retry.retries, logging each retry, and gets what is produced once the server is back", async () => {
    const { server, consumer, seen, lines, produce } = await running(2);
    await produce(["a", "b"]);
    await until(() => seen.length === 2, "the records before the outage");
    server.down = true;
    await until(() => server.refused.filter((request) => request.endsWith("/poll")).length >= 8, "eight refused polls");
    server.down = false;
    await produce(["c", "d"]);
    await until(() => seen.length === 4, "the records after the outage");
    await consumer.disconnect();
    await consumer.done(); // it never crashed
    expect(seen.map((message) => text(message.value)).sort()).toEqual(["a", "b", "c", "d"]);
    const pollRetries = lines.filter((line) => /^retrying POST \/v1\/groups\/g\/members\/[^/]+\/poll after NETWORK_EXCEPTION/.test(line.message));
    expect(pollRetries.length).toBeGreaterThanOrEqual(8);
  });

  it("joins anew when the restarted server no longer knows it, and resumes from the committed offsets", async () => {
    const { server, consumer, seen, lines, produce } = await running(2);
    await produce(["a", "b"]);
    await until(() => seen.length === 2, "the records before the outage");
    // The next poll commits what was processed; wait for it, so that the restart keeps it.
    await until(() => [0, 1].every((partition) => server.groups.get("g")?.committed.get(`orders/${partition}`) === 1), "the commit of a and b");
    server.down = true;
    await until(() => server.refused.length >= 4, "refused requests");
    server.forgetMembers();
    server.down = false;
    await produce(["c", "d"]);
    await until(() => seen.length === 4, "the records after the restart");
    await consumer.disconnect();
    await consumer.done();
    // Nothing skipped, nothing before the committed offsets read again.
    expect(seen.map((message) => text(message.value)).sort()).toEqual(["a", "b", "c", "d"]);
    expect(server.requestsTo(/^\/v1\/groups\/g\/members$/, "POST")).toHaveLength(2);
    expect(lines.some((line) => line.message.includes("is unknown to the server; joining anew"))).toBe(true);
  });

  it("disconnect() ends it while the server is still down", async () => {
    const { server, consumer } = await running(2);
    await until(() => server.requestsTo(/\/poll$/).length >= 1, "a first poll");
    server.down = true;
    await until(() => server.refused.length >= 3, "refused polls");
    await consumer.disconnect(); // resolves: the commit and leave that fail are reported through done()
    await expect(consumer.done()).rejects.toSatisfy((error: unknown) => isTributaryError(error, "NETWORK_EXCEPTION"));
  });

  it("still stops on an error that is not retriable", async () => {
    const { server, consumer } = await running(2);
    await until(() => server.requestsTo(/\/poll$/).length >= 1, "a first poll");
    server.failNext((request) => request.path.endsWith("/poll"), { kind: "error", status: 403, body: { error: { code: "GROUP_AUTHORIZATION_FAILED", message: "no" } } });
    await expect(consumer.done()).rejects.toSatisfy((error: unknown) => isTributaryError(error, "GROUP_AUTHORIZATION_FAILED"));
  });
});
