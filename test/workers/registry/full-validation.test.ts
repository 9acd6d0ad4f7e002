/**
 * Full validation (issue 30; docs/schema-registry.md, "Full validation"): a topic with
 * `tributary.value.schema.validation=full` (or key) takes a key or value only when its id is
 * admitted as with Confluent's id validation and its data, after the header, conforms to the
 * schema — Avro binary read against the Avro schema, JSON against the JSON Schema — through JSON
 * produce, binary produce, the service binding and Durable Streams' appends; anything else is 400 INVALID_RECORD naming
 * the record and where in its data it fails, nothing of the request written.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeRecordBatch, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { TributaryService } from "../../../src/service.ts";
import { ds, uniquePath } from "../durable-streams/support/stream-calls.ts";
import { api, createTopic, expectError, highWatermarks, uniqueTopic } from "../support/http.ts";
import { produceBinary } from "../compression/support.ts";
import { registeredId } from "./support.ts";
import { avroLong, avroString, base64, produceJson, wire } from "./wire-support.ts";

const utf8 = new TextEncoder();

function binaryRecords(values: (Uint8Array | null)[]): RecordInput[] {
  return values.map((value) => ({ key: null, value, headers: [], timestamp: Date.now() }));
}

/** A topic with full value validation, its `<topic>-value` subject holding an Avro record {id: long, name: string, tags: [string]}. */
async function avroTopic(prefix: string, configs: Record<string, string> = {}) {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { configs: { "tributary.value.schema.validation": "full", ...configs } });
  const schema = {
    type: "record",
    name: `Order${topic.replace(/[^A-Za-z0-9]/g, "")}`,
    fields: [
      { name: "id", type: "long" },
      { name: "name", type: "string" },
      { name: "tags", type: { type: "array", items: "string" } },
    ],
  };
  const id = await registeredId(`${topic}-value`, JSON.stringify(schema));
  return { topic, id };
}

const order = (id: number, name: string) => [...avroLong(id), ...avroString(name), ...avroLong(1), ...avroString("t"), ...avroLong(0)];

describe("full validation on produce", () => {
  it("JSON produce: writes Avro data that conforms, refuses data that does not with where, nothing written", async () => {
    const { topic, id } = await avroTopic("full-avro");
    const good = await produceJson(topic, [{ value: wire(id, order(1, "a")) }, { value: null }]);
    expect(good.status, good.text).toBe(200);
    const cases: [number[], RegExp][] = [
      [order(2, "b").slice(0, -3), /^record 1: value does not conform to schema id \d+ \(AVRO\) at \/tags\/0: the datum ends inside a string length/],
      [[...order(2, "b"), 7], /^record 1: value does not conform to schema id \d+ \(AVRO\) at \/: 1 bytes follow the datum$/],
      [[...avroLong(2), ...avroLong(1 << 20), 0x61], /at \/name: a string length 1048576 is more than the 1 bytes left/],
      [[...avroLong(2), ...avroString("b"), ...avroLong(1), 0x02, 0xc3, 0x28, ...avroLong(0)], /at \/tags\/0: a string is not UTF-8/],
    ];
    for (const [data, message] of cases) {
      const error = expectError(await produceJson(topic, [{ value: wire(id, order(2, "ok")) }, { value: wire(id, data) }]), 400, "INVALID_RECORD");
      expect(error.message).toMatch(message);
      expect(error.recordIndex).toBe(1);
    }
    // The id is still checked first, as with id validation.
    expect(expectError(await produceJson(topic, [{ value: utf8.encode("raw") }]), 400, "INVALID_RECORD").message).toMatch(/not Confluent's wire format/);
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("JSON schemas: the document read as JSON and checked against its schema", async () => {
    const topic = uniqueTopic("full-json");
    await createTopic(topic, { configs: { "tributary.key.schema.validation": "full" } });
    const schema = { type: "object", required: ["sku"], properties: { sku: { type: "string", pattern: "^[A-Z]+$" }, qty: { type: "integer", minimum: 1 } }, additionalProperties: false };
    const id = await registeredId(`${topic}-key`, JSON.stringify(schema), { schemaType: "JSON" });
    const json = (text: string) => wire(id, [...utf8.encode(text)]);
    const good = await produceJson(topic, [{ key: json('{"sku":"AB","qty":2}'), value: utf8.encode("values are not checked") }, { key: null, value: null }]);
    expect(good.status, good.text).toBe(200);
    const cases: [string, RegExp][] = [
      ['{"sku":"ab"}', /^record 0: key does not conform to schema id \d+ \(JSON\) at \/sku: "ab" does not match pattern/],
      ['{"sku":"AB","qty":0}', /at \/qty: 0 is less than minimum 1/],
      ['{"qty":1}', /at \/: required property "sku" is missing/],
      ['{"sku":"AB","x":1}', /at \/x: the schema does not allow this property/],
      ['{"sku":', /at \/: the data is not JSON/],
    ];
    for (const [text, message] of cases) {
      const error = expectError(await produceJson(topic, [{ key: json(text), value: null }]), 400, "INVALID_RECORD");
      expect(error.message).toMatch(message);
      expect(error.recordIndex).toBe(0);
    }
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("binary produce, compressed batches decoded, naming the batch and record", async () => {
    const { topic, id } = await avroTopic("full-binary");
    const good = binaryRecords([wire(id, order(1, "a")), wire(id, order(2, "b"))]);
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(good), "zstd"))).status).toBe(200);
    const bad = binaryRecords([wire(id, order(3, "c")), wire(id, [...avroLong(4)])]);
    const error = expectError(await produceBinary(topic, new Uint8Array([...encodeRecordBatch(good), ...compressBatch(encodeRecordBatch(bad), "gzip")])), 400, "INVALID_RECORD");
    expect(error.message).toMatch(/^batch 1, record 1: value does not conform to schema id \d+ \(AVRO\) at \/name: the datum ends inside a string length/);
    expect(error.recordIndex).toBe(3);
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("through the service binding, JSON and binary", async () => {
    const { topic, id } = await avroTopic("full-service");
    const service = new TributaryService(createExecutionContext(), env);
    expect((await service.produce(topic, { records: [{ value: base64(wire(id, order(1, "a"))) }], encoding: "base64" })).ok).toBe(true);
    const refused = await service.produce(topic, { records: [{ value: base64(wire(id, order(1, "a"))) }, { value: base64(wire(id, [1])) }], encoding: "base64" });
    expect(refused).toMatchObject({ ok: false, error: { code: "INVALID_RECORD", data: { recordIndex: 1 } } });
    const batch = await service.produceBatches(topic, 0, encodeRecordBatch(binaryRecords([wire(id, [0x03])])), { acks: "all" });
    expect(batch).toMatchObject({ ok: false, error: { code: "INVALID_RECORD", message: expect.stringMatching(/at \/: the datum ends inside a string length|at \/name/) } });
    expect(await highWatermarks(topic)).toEqual([1]);
  });

  it("a Durable Stream's appends, as a produce", async () => {
    const path = uniquePath("full-stream");
    const topic = streamTopicName(path);
    const binary = { "content-type": "application/octet-stream" };
    expect((await ds("PUT", path, { headers: binary })).status).toBe(201);
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "tributary.value.schema.validation": "full" } })).status).toBe(200);
    const id = await registeredId(`${topic}-value`, JSON.stringify({ type: "record", name: "StreamOrder", fields: [{ name: "id", type: "long" }, { name: "name", type: "string" }] }));
    expect((await ds("POST", path, { headers: binary, body: wire(id, [...avroLong(1), ...avroString("a")]) })).status).toBe(204);
    const refused = await ds("POST", path, { headers: binary, body: wire(id, [...avroLong(1)]) });
    expect(refused.status, refused.text).toBe(400);
    expect(JSON.parse(refused.text).error).toMatchObject({ code: "INVALID_RECORD", message: expect.stringMatching(/does not conform to schema id \d+ \(AVRO\) at \/name/) });
    expect((await api("GET", `/v1/topics/${topic}`)).body.partitions[0].highWatermark).toBe(1);
  });

  it("is a config of its own: full implies the id check, and turning it off leaves Confluent's", async () => {
    const { topic, id } = await avroTopic("full-config", { "confluent.value.schema.validation": "true" });
    const shapeless = wire(id, [0xff]);
    expectError(await produceJson(topic, [{ value: shapeless }]), 400, "INVALID_RECORD");
    const off = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "tributary.value.schema.validation": "false" } });
    expect(off.status, off.text).toBe(200);
    expect((await produceJson(topic, [{ value: shapeless }])).status).toBe(200); // id only: the data is not read
    const invalid = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "tributary.value.schema.validation": "true" } });
    expect(invalid.status).toBe(400);
  });
});
