import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import {
  protobufMessagePath,
  schemaRecordName,
  subjectFor,
  subjectStrategyConfigValues,
  subjectStrategyOf,
  wireSchemaId,
} from "../../../src/registry/wire-format.ts";
import { recordRules } from "../../../src/topics/record-rules.ts";
import { collectSchemaIds, payloadField, type SchemaIdRef } from "../../../src/topics/schema-id-refs.ts";
import { mergeTopicConfigs } from "../../../src/topics/topic-configs.ts";
import type { TopicMetadata } from "../../../src/topics/topic-metadata.ts";

/** Confluent's wire format: magic byte 0, the id as int32 big-endian, then the payload. */
function wire(id: number, payload: number[] = [2, 4]): Uint8Array {
  return new Uint8Array([0, (id >>> 24) & 255, (id >>> 16) & 255, (id >>> 8) & 255, id & 255, ...payload]);
}

const whole = (bytes: Uint8Array) => wireSchemaId(bytes, 0, bytes.length);

describe("Confluent's wire format", () => {
  it("reads the schema id as a 4-byte big-endian integer after magic byte 0", () => {
    expect(whole(wire(1))).toBe(1);
    expect(whole(wire(258))).toBe(258);
    expect(whole(wire(0x01020304, []))).toBe(0x01020304);
    // Unsigned: no negative id out of a top bit.
    expect(whole(wire(0x80000001))).toBe(0x80000001);
  });

  it("reads it at an offset inside a larger buffer (a batch's records)", () => {
    const buffer = new Uint8Array([9, 9, 9, ...wire(77), 9]);
    expect(wireSchemaId(buffer, 3, 7)).toBe(77);
  });

  it("says why a payload is not in the wire format", () => {
    expect(whole(new Uint8Array(0))).toMatch(/is empty/);
    expect(whole(new Uint8Array([0, 0, 0, 1]))).toMatch(/has 4 bytes, fewer than .*5/);
    expect(whole(new TextEncoder().encode('{"id": 1}'))).toMatch(/starts with byte 123, not .*magic byte 0/);
    expect(whole(new Uint8Array([1, 0, 0, 0, 1, 2]))).toMatch(/starts with byte 1/);
  });
});

describe("Protobuf's message indexes", () => {
  it("reads the zigzag count and indexes after the header as a path; a count of 0 is the first message", () => {
    const path = (...bytes: number[]) => protobufMessagePath(Uint8Array.from([9, 9, ...bytes]), 2, bytes.length + 2);
    expect(path(0)).toBe("0");
    expect(path(2, 2)).toBe("1"); // count 1, index 1
    expect(path(4, 0, 6)).toBe("0.3");
    expect(path(2, 0x80, 0x02)).toBe("128"); // a two-byte varint
    expect(path()).toBeUndefined();
    expect(path(4, 2)).toBeUndefined(); // cut short
    expect(path(1)).toBeUndefined(); // a negative count
    expect(path(2, 1)).toBeUndefined(); // a negative index
    expect(path(0x82, 0x01)).toBeUndefined(); // 65 indexes: past any schema's nesting
  });
});

describe("subject name strategies", () => {
  it("takes Confluent's class names and the short names", () => {
    expect(subjectStrategyConfigValues).toEqual([
      "io.confluent.kafka.serializers.subject.TopicNameStrategy",
      "TopicNameStrategy",
      "io.confluent.kafka.serializers.subject.RecordNameStrategy",
      "RecordNameStrategy",
      "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
      "TopicRecordNameStrategy",
    ]);
    expect(subjectStrategyOf("io.confluent.kafka.serializers.subject.RecordNameStrategy")).toBe("RecordNameStrategy");
    expect(subjectStrategyOf("TopicRecordNameStrategy")).toBe("TopicRecordNameStrategy");
  });

  it("gives Confluent's subjects", () => {
    expect(subjectFor("TopicNameStrategy", "orders", false, undefined)).toBe("orders-value");
    expect(subjectFor("TopicNameStrategy", "orders", true, "com.acme.Order")).toBe("orders-key");
    expect(subjectFor("RecordNameStrategy", "orders", false, "com.acme.Order")).toBe("com.acme.Order");
    expect(subjectFor("RecordNameStrategy", "orders", true, "com.acme.OrderKey")).toBe("com.acme.OrderKey");
    expect(subjectFor("TopicRecordNameStrategy", "orders", false, "com.acme.Order")).toBe("orders-com.acme.Order");
    expect(subjectFor("RecordNameStrategy", "orders", false, undefined)).toBeUndefined();
  });

  it("names an Avro schema by its full name, a JSON schema by its title", () => {
    const avro = (schema: unknown) => schemaRecordName("AVRO", JSON.stringify(schema));
    expect(avro({ type: "record", name: "Order", namespace: "com.acme", fields: [] })).toBe("com.acme.Order");
    expect(avro({ type: "record", name: "com.acme.Order", namespace: "ignored", fields: [] })).toBe("com.acme.Order");
    expect(avro({ type: "record", name: "Order", fields: [] })).toBe("Order");
    expect(avro({ type: "enum", name: "Color", namespace: "x", symbols: ["RED"] })).toBe("x.Color");
    expect(avro({ type: "fixed", name: "Hash", size: 16 })).toBe("Hash");
    expect(avro("string")).toBe("string");
    expect(avro({ type: "long" })).toBe("long");
    expect(avro({ type: "array", items: "int" })).toBe("array");
    expect(avro(["null", "string"])).toBe("union");
    expect(schemaRecordName("JSON", JSON.stringify({ title: "Order", type: "object" }))).toBe("Order");
    expect(schemaRecordName("JSON", JSON.stringify({ type: "object" }))).toBeUndefined();
    expect(schemaRecordName("PROTOBUF", "syntax = \"proto3\";")).toBeUndefined();
    expect(schemaRecordName("PROTOBUF", "syntax = \"proto3\"; package shop; enum E { A = 0; } message Order { message Line {} } message Other {}")).toBe("shop.Order");
    expect(schemaRecordName("PROTOBUF", "message Order {}")).toBe("Order");
  });
});

function topicWith(configs: Record<string, unknown>): TopicMetadata {
  return { name: "orders", topicId: "id", replicationFactor: 1, configs: mergeTopicConfigs({}, configs), partitions: [] };
}

function refusal(run: () => void): TributaryError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return error;
    throw error;
  }
  return undefined;
}

describe("a topic's schema id validation", () => {
  it("is off unless a side's config says true, and takes each side's strategy", () => {
    expect(recordRules(topicWith({})).schemaValidation).toBeUndefined();
    expect(recordRules(topicWith({ "confluent.value.subject.name.strategy": "RecordNameStrategy" })).schemaValidation).toBeUndefined();
    expect(recordRules(topicWith({ "confluent.value.schema.validation": "true" })).schemaValidation).toEqual({ key: undefined, value: "TopicNameStrategy" });
    expect(
      recordRules(
        topicWith({
          "confluent.key.schema.validation": true,
          "confluent.key.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
          "confluent.value.schema.validation": "false",
        }),
      ).schemaValidation,
    ).toEqual({ key: "TopicRecordNameStrategy", value: undefined });
  });

  it("collects each validated side's id, lets null pass and refuses what is not the wire format, naming the record", () => {
    const refs: SchemaIdRef[] = [];
    const both = { key: "TopicNameStrategy", value: "RecordNameStrategy" } as const;
    collectSchemaIds(refs, both, { recordIndex: 0 }, payloadField(wire(3)), payloadField(wire(4)));
    collectSchemaIds(refs, both, { recordIndex: 1 }, payloadField(null), payloadField(null)); // a tombstone without a key
    collectSchemaIds(refs, { key: undefined, value: "TopicNameStrategy" }, { recordIndex: 2 }, payloadField(new Uint8Array([7])), payloadField(wire(5)));
    expect(refs).toEqual([
      { recordIndex: 0, isKey: true, schemaId: 3, strategy: "TopicNameStrategy" },
      { recordIndex: 0, isKey: false, schemaId: 4, strategy: "RecordNameStrategy", messagePath: "2" }, // the data [2, 4] read as Protobuf's message indexes [2]
      { recordIndex: 2, isKey: false, schemaId: 5, strategy: "TopicNameStrategy" },
    ]);
    const refused = refusal(() => collectSchemaIds([], both, { recordIndex: 7 }, payloadField(wire(3)), payloadField(new TextEncoder().encode("raw"))));
    expect(refused?.code).toBe("INVALID_RECORD");
    expect(refused?.message).toMatch(/^record 7: value starts with byte 114, not Confluent's wire format's magic byte 0$/);
    expect(refused?.data).toEqual({ recordIndex: 7 });
    const inBatch = refusal(() => collectSchemaIds([], both, { recordIndex: 12, batch: 1, batchRecord: 2 }, payloadField(new Uint8Array([0, 1])), payloadField(wire(1))));
    expect(inBatch?.message).toMatch(/^batch 1, record 2: key has 2 bytes/);
    expect(inBatch?.data).toEqual({ recordIndex: 12 });
  });
});
