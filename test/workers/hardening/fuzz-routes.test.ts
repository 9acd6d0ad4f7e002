/**
 * Bad input can't hurt (issue 8, first part): arbitrary JSON bodies, query strings and path
 * segments against every route — unicode, huge and negative numbers, NaN, prototype keys —
 * answer a 4xx/2xx with a JSON body, never a 500, and a refused request changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, createTopic, describeTopic, uniqueTopic } from "../support/http.ts";

const nasty = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "NaN", "Infinity", "-1", "1e309", "9007199254740993", "", " ", "..", "%00", "\u0000", "😀", "ä/ö"),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 10 }),
);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.constantFrom(-1, 0, 1, 1.5, -(2 ** 53), 2 ** 53 + 2, 1e308, Number.MAX_SAFE_INTEGER, true, false, null),
  fc.integer(),
  fc.array(fc.oneof(nasty, fc.integer()), { maxLength: 3 }),
  fc.dictionary(nasty, fc.oneof(nasty, fc.integer(), fc.constant(null)), { maxKeys: 4 }),
);
const body: fc.Arbitrary<unknown> = fc.oneof(
  nastyValue,
  fc.dictionary(fc.constantFrom("records", "name", "partitions", "configs", "count", "topics", "memberEpoch", "positions", "offsets", "to", "acks", "encoding", "__proto__", "replicationFactor", "topic", "partition", "replica", "fault"), nastyValue, { maxKeys: 5 }),
  fc.string({ maxLength: 30 }), // sent as a raw (mostly malformed) body
);

type Route = { method: string; path: (segment: string, topic: string) => string };
const routes: Route[] = [
  { method: "POST", path: () => "/v1/topics" },
  { method: "GET", path: (segment) => `/v1/topics/${segment}` },
  { method: "PATCH", path: (_segment, topic) => `/v1/topics/${topic}/configs` },
  { method: "POST", path: (_segment, topic) => `/v1/topics/${topic}/partitions` },
  { method: "POST", path: (_segment, topic) => `/v1/topics/${topic}/records` },
  { method: "GET", path: (segment, topic) => `/v1/topics/${topic}/partitions/${segment}/records?offset=${segment}&maxRecords=${segment}&waitMs=0` },
  { method: "GET", path: (segment, topic) => `/v1/topics/${topic}/partitions/0/records?offset=${segment}&maxBytes=${segment}` },
  { method: "GET", path: (segment, topic) => `/v1/topics/${topic}/partitions/0/offsets?at=${segment}` },
  { method: "POST", path: (segment) => `/v1/groups/${segment}/members` },
  { method: "POST", path: (segment) => `/v1/groups/fuzz-group/members/${segment}/heartbeat` },
  { method: "POST", path: (segment) => `/v1/groups/fuzz-group/members/${segment}/poll` },
  { method: "POST", path: (segment) => `/v1/groups/${segment}/offsets` },
  { method: "POST", path: () => "/v1/groups/fuzz-group/offsets/reset" },
  { method: "POST", path: () => "/v1/producers" },
  { method: "POST", path: () => "/v1/faults" },
  { method: "POST", path: () => "/v1/tokens" },
  { method: "DELETE", path: (segment) => `/v1/tokens/${segment}` },
  { method: "POST", path: (_segment, topic) => `/v1/topics/${topic}/write-tokens` },
  { method: "DELETE", path: (segment) => `/v1/groups/${segment}` },
];

/** A request must answer within this (no fuzzed request waits: waitMs is never set). */
const answerWithinMs = 10_000;

function withinBound<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${answerWithinMs} ms: ${what}`)), answerWithinMs);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

/** What a refused request must not change: the topic's identity, partitions, configs and log ends. */
async function topicState(topic: string) {
  const described = await describeTopic(topic);
  return {
    topicId: described.topicId,
    configs: described.configs,
    partitions: described.partitions.map(({ partition, logStartOffset, highWatermark }) => ({ partition, logStartOffset, highWatermark })),
  };
}

describe("fuzzed requests", () => {
  it("never answer 500 or hang, always answer JSON, and change nothing when refused", async () => {
    const topic = uniqueTopic("fuzz");
    await createTopic(topic, { partitions: 2 });
    const first = await topicState(topic);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.string({ maxLength: 12 }), body, async (route, raw, payload) => {
        const segment = encodeURIComponent(raw);
        const what = `${route.method} ${route.path(segment, topic)} ${JSON.stringify(payload)}`;
        const before = await topicState(topic);
        const response = await withinBound(api(route.method, route.path(segment, topic), route.method === "GET" ? undefined : payload), what);
        expect(response.status, `${what} → ${response.text}`).toBeLessThan(500);
        if (response.status >= 400) {
          expect(response.body?.error?.code, response.text).toEqual(expect.any(String));
          expect(await topicState(topic), `${what} → ${response.text}`).toEqual(before);
        }
      }),
      { numRuns: 400, seed: 20261202 },
    );
    // Some fuzzed requests are valid (a produce, a partition increase); the topic is still the same one.
    expect((await topicState(topic)).topicId).toBe(first.topicId);
  });
});
