import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { usualProduceRequest } from "../../../src/protocol/produce-request-check.ts";
import { produceRequestSchema } from "../../../src/protocol/schemas.ts";

/** A value as JSON.parse gives it: the router checks parsed bodies only. */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** What JSON.parse can give for one field: right types, wrong types, edge numbers. */
const anyField = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string(),
  fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e300, 0x7fffffff),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** The usual request, as clients send it: every field of the right type. */
const usualRecord = fc.record(
  {
    key: fc.option(fc.string(), { nil: null }),
    value: fc.option(fc.string(), { nil: null }),
    headers: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    partition: fc.nat(),
    timestamp: fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(-(2 ** 53) + 1)),
  },
  { requiredKeys: ["value"] },
);
const usualRequest = fc.record(
  {
    records: fc.array(usualRecord, { minLength: 1, maxLength: 5 }),
    acks: fc.constantFrom(0, 1, "all"),
    encoding: fc.constantFrom("utf8", "base64"),
  },
  { requiredKeys: ["records"] },
);

/**
 * A usual request with one or two fields changed — to any JSON value, or removed — or an
 * unknown field added, on the request or on one of its records: near the usual shape, where
 * a hand check and the schema could part.
 */
const change = fc.record({
  onRecord: fc.boolean(),
  index: fc.nat(),
  field: fc.constantFrom("records", "acks", "encoding", "producerId", "producerEpoch", "sequences", "key", "value", "headers", "partition", "timestamp", "extra", "__proto__"),
  value: fc.option(anyField, { nil: undefined }),
});
const nearlyUsualRequest = fc.tuple(usualRequest, fc.array(change, { minLength: 1, maxLength: 2 })).map(([request, changes]) => {
  const json = viaJson(request) as Record<string, unknown> & { records: Record<string, unknown>[] };
  for (const { onRecord, index, field, value } of changes) {
    const target = onRecord && Array.isArray(json.records) && json.records.length > 0 ? json.records[index % json.records.length] : json;
    if (target === null || typeof target !== "object") continue;
    if (value === undefined) delete target[field];
    else Object.defineProperty(target, field, { value, enumerable: true, configurable: true, writable: true });
  }
  return json;
});

describe("usualProduceRequest: the produce request's usual shape by hand", () => {
  it("never accepts what the schema refuses, and answers what the schema answers when it accepts", () => {
    fc.assert(
      fc.property(fc.oneof(nearlyUsualRequest, fc.jsonValue({ maxDepth: 3 })), (json) => {
        const usual = usualProduceRequest(json);
        if (usual === undefined) return;
        const parsed = produceRequestSchema.safeParse(json);
        expect(parsed.success).toBe(true);
        expect(usual).toStrictEqual(parsed.data);
      }),
      { numRuns: 5_000 },
    );
  });

  it("accepts every request of the usual shape, as the schema does", () => {
    fc.assert(
      fc.property(usualRequest.map(viaJson), (json) => {
        const usual = usualProduceRequest(json);
        expect(usual).toBeDefined();
        expect(usual).toStrictEqual(produceRequestSchema.parse(json));
      }),
      { numRuns: 1_000 },
    );
  });

  it("leaves to the schema what only it judges or refuses", () => {
    const ok = { value: "v" };
    for (const body of [
      { records: [ok], producerId: 1, producerEpoch: 0, sequences: { 0: 0 } },
      { records: [ok], extra: 1 },
      { records: [] },
      { records: [{ ...ok, extra: 1 }] },
      { records: [{ key: "k" }] },
      { records: [{ value: "v", partition: -1 }] },
      { records: [{ value: "v", partition: 1.5 }] },
      { records: [{ value: "v", timestamp: 2 ** 53 }] },
      { records: [{ value: "v", headers: { h: 1 } }] },
      { records: [ok], acks: 2 },
      { records: [ok], encoding: "hex" },
      [ok],
      null,
    ]) {
      expect(usualProduceRequest(viaJson(body)), JSON.stringify(body)).toBeUndefined();
    }
  });

  it("keeps a header named __proto__ as the schema does", () => {
    const json = JSON.parse('{"records":[{"value":"v","headers":{"__proto__":"x","a":"b"}}]}');
    expect(usualProduceRequest(json)).toStrictEqual(produceRequestSchema.parse(json));
    expect(usualProduceRequest(json)!.records[0]!.headers).toEqual([["__proto__", "x"], ["a", "b"]]);
  });
});
