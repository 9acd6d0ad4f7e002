/**
 * Records checked before they are written (issue 30; docs/schema-registry.md): a topic with
 * `confluent.value.schema.validation` (or key) takes only keys and values in Confluent's wire
 * format naming a schema registered under the subject its strategy gives, through JSON produce,
 * binary produce (compressed batches decoded to be checked) and the service binding; anything
 * else is 400 INVALID_RECORD naming the record, nothing of the request written.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrapRegistry } from "../../../src/registry/registry-errors.ts";
import { registryCalls } from "../../../src/data-plane/registry-calls.ts";
import { TributaryError } from "../../../src/errors.ts";
import { checkClientBatches } from "../../../src/data-plane/binary-produce.ts";
import { checkSchemaIds } from "../../../src/data-plane/schema-id-checks.ts";
import { topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { schemaValidationSubjectsFreshMs } from "../../../src/limits.ts";
import { encodeRecordBatch, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { TributaryService } from "../../../src/service.ts";
import { recordRules } from "../../../src/topics/record-rules.ts";
import type { SchemaIdRef } from "../../../src/topics/schema-id-refs.ts";
import { api, createTopic, expectError, highWatermarks, readAll, uniqueTopic } from "../support/http.ts";
import { produceBinary } from "../compression/support.ts";
import { recordSchema, registeredId, registry } from "./support.ts";

const utf8 = new TextEncoder();

/** A payload in Confluent's wire format: magic byte 0, the schema id (int32 big-endian), the data. */
function wire(id: number, data = "avro-bytes"): Uint8Array {
  const bytes = new Uint8Array(5 + data.length);
  new DataView(bytes.buffer).setInt32(1, id);
  bytes.set(utf8.encode(data), 5);
  return bytes;
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** JSON produce of base64 values (and keys), acks all. */
function produceJson(topic: string, records: { key?: Uint8Array | null; value: Uint8Array | null }[]) {
  const body = records.map(({ key, value }) => ({ key: key ? base64(key) : key, value: value && base64(value) }));
  return api("POST", `/v1/topics/${topic}/records`, { records: body, encoding: "base64", acks: "all" });
}

function binaryRecords(values: (Uint8Array | null)[], key: (index: number) => Uint8Array | null = () => null): RecordInput[] {
  return values.map((value, index) => ({ key: key(index), value, headers: [], timestamp: Date.now() }));
}

/** A topic with value validation and its `<topic>-value` subject holding one schema. */
async function validatedTopic(prefix: string, configs: Record<string, string> = {}) {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { configs: { "confluent.value.schema.validation": "true", ...configs } });
  const id = await registeredId(`${topic}-value`, recordSchema([{ name: "n", type: "int" }], `V${topic.replace(/[^A-Za-z0-9]/g, "")}`));
  return { topic, id };
}

describe("schema id validation on produce", () => {
  it("writes records naming a schema of the topic's value subject, and refuses the whole request for one that does not, naming it", async () => {
    const { topic, id } = await validatedTopic("validated");
    const good = await produceJson(topic, [{ value: wire(id) }, { key: utf8.encode("raw keys pass"), value: wire(id, "two") }]);
    expect(good.status, good.text).toBe(200);

    const other = await registeredId(`${topic}-other`, recordSchema([{ name: "other", type: "string" }], "Other"));
    const cases: [Uint8Array, RegExp][] = [
      [utf8.encode('{"n": 1}'), /^record 2: value starts with byte 123, not Confluent's wire format's magic byte 0$/],
      [new Uint8Array([0, 0, 1]), /^record 2: value has 3 bytes, fewer than Confluent's wire format's 5/],
      [wire(2 ** 30), new RegExp(`^record 2: value names schema id ${2 ** 30}, which the schema registry does not have$`)],
      [wire(other), new RegExp(`^record 2: value names schema id ${other}, which is not registered under subject "${topic}-value" \\(TopicNameStrategy\\)$`)],
    ];
    for (const [bad, message] of cases) {
      const error = expectError(await produceJson(topic, [{ value: wire(id) }, { value: wire(id) }, { value: bad }, { value: wire(id) }]), 400, "INVALID_RECORD");
      expect(error.message).toMatch(message);
      expect(error.recordIndex).toBe(2);
    }
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("lets null values (tombstones) and null keys pass, as Confluent Server does", async () => {
    const { topic, id } = await validatedTopic("tombstones", { "confluent.key.schema.validation": "true", "cleanup.policy": "compact" });
    const keyId = await registeredId(`${topic}-key`, JSON.stringify("string"));
    expect((await produceJson(topic, [{ key: wire(keyId), value: wire(id) }, { key: wire(keyId), value: null }])).status).toBe(200);
    const keyless = await createTopic(uniqueTopic("keyless"), { configs: { "confluent.key.schema.validation": "true" } });
    expect((await produceJson(keyless.name, [{ key: null, value: utf8.encode("a raw value: only keys are checked") }])).status).toBe(200);
    // With key validation on, a raw key is refused.
    const error = expectError(await produceJson(topic, [{ key: utf8.encode("k"), value: wire(id) }]), 400, "INVALID_RECORD");
    expect(error.message).toMatch(/^record 0: key starts with byte 107/);
    expect(await highWatermarks(topic)).toEqual([2]);
  });

  it("takes a schema registered under the subject just now, without waiting for the cache (a miss is looked up again)", async () => {
    const topic = uniqueTopic("late-subject");
    await createTopic(topic, { configs: { "confluent.value.schema.validation": "true" } });
    const schema = recordSchema([{ name: "late", type: "long" }], `Late${topic.replace(/[^A-Za-z0-9]/g, "")}`);
    const id = await registeredId(`${topic}-elsewhere`, schema);
    expectError(await produceJson(topic, [{ value: wire(id) }]), 400, "INVALID_RECORD"); // cached: held by another subject only
    expect(await registeredId(`${topic}-value`, schema)).toBe(id);
    const answer = await produceJson(topic, [{ value: wire(id) }]);
    expect(answer.status, answer.text).toBe(200);
  });

  it("caches an id's subjects for the freshness bound: a deleted subject still admits its id until then, not after", async () => {
    const { topic, id } = await validatedTopic("deleted-subject");
    const refs: SchemaIdRef[] = [{ recordIndex: 0, isKey: false, schemaId: id, strategy: "TopicNameStrategy" }];
    const now = Date.now();
    await checkSchemaIds(env, topic, refs, now);
    expect((await registry("DELETE", `/subjects/${topic}-value`)).status).toBe(200); // soft: no live version holds it
    await checkSchemaIds(env, topic, refs, now + schemaValidationSubjectsFreshMs - 1);
    const refused = await checkSchemaIds(env, topic, refs, now + schemaValidationSubjectsFreshMs).then(
      () => undefined,
      (error: TributaryError) => error,
    );
    expect(refused?.code).toBe("INVALID_RECORD");
    expect(refused?.message).toMatch(/is not registered under subject/);
  });

  it("follows RecordNameStrategy and TopicRecordNameStrategy, given as Confluent's class names or short names", async () => {
    const topic = uniqueTopic("record-names");
    await createTopic(topic, {
      configs: {
        "confluent.value.schema.validation": "true",
        "confluent.value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy",
        "confluent.key.schema.validation": "true",
        "confluent.key.subject.name.strategy": "TopicRecordNameStrategy",
      },
    });
    const suffix = topic.replace(/[^A-Za-z0-9]/g, "");
    const valueName = `com.acme${suffix}.Order`;
    const valueId = await registeredId(valueName, JSON.stringify({ type: "record", name: "Order", namespace: `com.acme${suffix}`, fields: [] }));
    const keyId = await registeredId(`${topic}-OrderKey${suffix}`, JSON.stringify({ title: `OrderKey${suffix}`, type: "string" }), { schemaType: "JSON" });
    const answer = await produceJson(topic, [{ key: wire(keyId), value: wire(valueId) }]);
    expect(answer.status, answer.text).toBe(200);
    // The value's schema under `<topic>-value` only: not its record name's subject.
    const topicNamed = await registeredId(`${topic}-value`, JSON.stringify({ type: "record", name: "Elsewhere", fields: [] }));
    const error = expectError(await produceJson(topic, [{ key: wire(keyId), value: wire(topicNamed) }]), 400, "INVALID_RECORD");
    expect(error.message).toContain(`not registered under subject "Elsewhere" (RecordNameStrategy)`);
    // A JSON schema without a title has no record name to name its subject.
    const untitled = await registeredId(`${topic}-untitled`, JSON.stringify({ type: "string", maxLength: 9 }), { schemaType: "JSON" });
    const noName = expectError(await produceJson(topic, [{ key: wire(untitled), value: wire(valueId) }]), 400, "INVALID_RECORD");
    expect(noName.message).toMatch(/^record 0: key names schema id \d+, a JSON schema without a record name/);
  });

  it("is alterable on a live topic, both ways", async () => {
    const topic = uniqueTopic("altered");
    await createTopic(topic);
    const raw = utf8.encode("not the wire format");
    expect((await produceJson(topic, [{ value: raw }])).status).toBe(200);
    const on = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "confluent.value.schema.validation": "true" } });
    expect(on.status, on.text).toBe(200);
    expect(on.body.configs["confluent.value.schema.validation"]).toBe("true");
    expect(on.body.configOverrides).toContain("confluent.value.schema.validation");
    expectError(await produceJson(topic, [{ value: raw }]), 400, "INVALID_RECORD");
    const id = await registeredId(`${topic}-value`, recordSchema([{ name: "a", type: "int" }], `Altered${topic.replace(/[^A-Za-z0-9]/g, "")}`));
    expect((await produceJson(topic, [{ value: wire(id) }])).status).toBe(200);
    const strategy = await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "confluent.value.subject.name.strategy": "RecordNameStrategy" } });
    expect(strategy.body.configs["confluent.value.subject.name.strategy"]).toBe("RecordNameStrategy");
    expectError(await produceJson(topic, [{ value: wire(id) }]), 400, "INVALID_RECORD"); // its record name's subject does not hold it
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "confluent.value.schema.validation": null } })).status).toBe(200);
    expect((await produceJson(topic, [{ value: raw }])).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([3]);
  });

  it("costs a topic without validation nothing: no rules, no ids collected, anything accepted", async () => {
    const topic = uniqueTopic("unvalidated");
    await createTopic(topic);
    const metadata = await topicMetadata(env, topic);
    expect(recordRules(metadata).schemaValidation).toBeUndefined();
    const unknownId = wire(2 ** 30);
    expect(checkClientBatches(encodeRecordBatch(binaryRecords([unknownId, utf8.encode("raw")])), metadata, Date.now()).schemaRefs).toEqual([]);
    expect((await produceJson(topic, [{ value: unknownId }, { value: utf8.encode("raw") }])).status).toBe(200);
    expect((await produceBinary(topic, encodeRecordBatch(binaryRecords([unknownId, utf8.encode("raw")])))).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([4]);
  });
});

describe("schema id validation on binary produce", () => {
  it("checks every record of a batch, compressed ones decoded, and names the refused one's batch and index", async () => {
    const { topic, id } = await validatedTopic("binary");
    const good = binaryRecords([wire(id, "a"), wire(id, "b"), null]);
    expect((await produceBinary(topic, encodeRecordBatch(good))).body).toMatchObject({ baseOffset: 0, lastOffset: 2 });
    expect((await produceBinary(topic, compressBatch(encodeRecordBatch(good), "gzip"))).body).toMatchObject({ baseOffset: 3, lastOffset: 5 });
    for (const codec of ["gzip", "lz4", "snappy", "zstd"] as const) {
      const bad = binaryRecords([wire(id), wire(id), wire(id), utf8.encode("raw"), wire(id)]);
      const error = expectError(await produceBinary(topic, compressBatch(encodeRecordBatch(bad), codec)), 400, "INVALID_RECORD");
      expect(error.message).toMatch(/^batch 0, record 3: value starts with byte 114/);
      expect(error.recordIndex).toBe(3);
    }
    // A second batch's record: its index counts the records of the batches before it.
    const unknown = expectError(
      await produceBinary(topic, new Uint8Array([...encodeRecordBatch(binaryRecords([wire(id), wire(id)])), ...compressBatch(encodeRecordBatch(binaryRecords([wire(id), wire(2 ** 30)])), "zstd")])),
      400,
      "INVALID_RECORD",
    );
    expect(unknown.message).toMatch(/^batch 1, record 1: value names schema id \d+, which the schema registry does not have$/);
    expect(unknown.recordIndex).toBe(3);
    expect(await highWatermarks(topic)).toEqual([6]);
    expect((await readAll(topic, 0, { encoding: "base64" })).map((record) => record.value)).toEqual([...good, ...good].map((record) => record.value && base64(record.value)));
  });

  it("through the service binding, JSON and binary", async () => {
    const { topic, id } = await validatedTopic("service");
    const service = new TributaryService(createExecutionContext(), env);
    const good = await service.produce(topic, { records: [{ value: base64(wire(id)) }], encoding: "base64" });
    expect(good.ok).toBe(true);
    const refused = await service.produce(topic, { records: [{ value: "raw" }] });
    expect(refused).toMatchObject({ ok: false, error: { code: "INVALID_RECORD", data: { recordIndex: 0 } } });
    const batch = await service.produceBatches(topic, 0, encodeRecordBatch(binaryRecords([utf8.encode("raw")])), { acks: "all" });
    expect(batch).toMatchObject({ ok: false, error: { code: "INVALID_RECORD" } });
    expect(await highWatermarks(topic)).toEqual([1]);
  });
});

describe("the registry's answer for validation", () => {
  it("gives each found id's type, record name and live subjects in one call", async () => {
    const topic = uniqueTopic("lookup");
    const id = await registeredId(`${topic}-value`, JSON.stringify({ type: "record", name: "Looked", namespace: "up", fields: [] }));
    const answer = unwrapRegistry(await registryCalls(env).schemasForValidation([id, 2 ** 30, id]));
    expect(answer).toEqual([{ id, schemaType: "AVRO", recordName: "up.Looked", subjects: [`${topic}-value`] }]);
  });
});
