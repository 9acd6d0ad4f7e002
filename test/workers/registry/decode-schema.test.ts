/**
 * `decode=schema` on JSON fetch and SSE (issue 30; docs/api.md, "Reading decoded"): a key or
 * value in Confluent's wire format is shown as the JSON its schema decodes it to, with its schema
 * id beside it; one that cannot be decoded is shown as usual with a note saying why.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { readRecords, stream } from "../streams/support.ts";
import { registeredId } from "./support.ts";
import { avroLong, avroString, base64, produceJson, wire } from "./wire-support.ts";

const utf8 = new TextEncoder();

/** A topic holding one record of each case: Avro, JSON, a raw value, an unknown id, data that does not conform, a tombstone. */
async function mixedTopic(prefix: string) {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { configs: { "cleanup.policy": "compact" } });
  const avro = {
    type: "record",
    name: `Reading${topic.replace(/[^A-Za-z0-9]/g, "")}`,
    fields: [
      { name: "id", type: "long" },
      { name: "note", type: ["null", "string"] },
      { name: "blob", type: "bytes" },
    ],
  };
  const avroId = await registeredId(`${topic}-value`, JSON.stringify(avro));
  const jsonId = await registeredId(`${topic}-json`, JSON.stringify({ type: "object" }), { schemaType: "JSON" });
  const avroData = [...avroLong(-7), ...avroLong(1), ...avroString("hé"), ...avroLong(2), 0xff, 0x00];
  const key = utf8.encode("k");
  const produced = await produceJson(topic, [
    { key: wire(avroId, avroString("") /* decoded by the value's record schema: does not conform */), value: wire(avroId, avroData) },
    { key, value: wire(jsonId, [...utf8.encode('{"a":[1,true]}')]) },
    { key, value: utf8.encode("plain text") },
    { key, value: wire(2 ** 30, [1]) },
    { key, value: wire(avroId, [...avroLong(1)]) },
    { key, value: null },
  ]);
  expect(produced.status, produced.text).toBe(200);
  return { topic, avroId, jsonId };
}

function expectDecoded(records: any[], avroId: number, jsonId: number): void {
  expect(records).toHaveLength(6);
  expect(records[0]).toMatchObject({ value: { id: -7, note: "hé", blob: "/wA=" }, valueSchemaId: avroId });
  expect(records[0].keyDecodeError).toMatch(new RegExp(`^does not conform to schema id ${avroId} \\(AVRO\\) at /note`));
  expect(records[0].key).toBe(base64(wire(avroId, avroString(""))));
  expect(records[1]).toMatchObject({ key: "aw==", value: { a: [1, true] }, valueSchemaId: jsonId });
  expect(records[1].keyDecodeError).toMatch(/^starts with byte 107, not Confluent's wire format/);
  expect(records[2]).toMatchObject({ value: base64(utf8.encode("plain text")), valueDecodeError: expect.stringMatching(/^starts with byte 112/) });
  expect(records[3]).toMatchObject({ valueDecodeError: `names schema id ${2 ** 30}, which the schema registry does not have` });
  expect(records[4].valueDecodeError).toMatch(new RegExp(`^does not conform to schema id ${avroId} \\(AVRO\\) at /note: the datum ends inside a union branch index`));
  expect(records[5]).toMatchObject({ value: null });
  expect(records[5]).not.toHaveProperty("valueDecodeError");
  for (const record of records.slice(1)) expect(record).not.toHaveProperty("keySchemaId");
}

describe("decode=schema", () => {
  it("JSON fetch: wire-format keys and values decoded by their schemas, the others as usual with a note", async () => {
    const { topic, avroId, jsonId } = await mixedTopic("decode-fetch");
    const answer = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64&decode=schema`);
    expect(answer.status, answer.text).toBe(200);
    expectDecoded(answer.body.records, avroId, jsonId);
    // Without decode, nothing is decoded.
    const plain = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64`);
    expect(plain.body.records[0].value).toBe(base64(wire(avroId, [...avroLong(-7), ...avroLong(1), ...avroString("hé"), ...avroLong(2), 0xff, 0x00])));
    expect(plain.body.records[0]).not.toHaveProperty("valueSchemaId");
    expectError(await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&decode=avro`), 400, "INVALID_REQUEST");
  });

  it("SSE on a partition and on a whole topic", async () => {
    const { topic, avroId, jsonId } = await mixedTopic("decode-sse");
    const partition = await stream(`/v1/topics/${topic}/partitions/0/records?offset=earliest&encoding=base64&decode=schema`);
    expectDecoded((await readRecords(partition, 6)).records, avroId, jsonId);
    await partition.close();
    const whole = await stream(`/v1/topics/${topic}/records?offset=earliest&encoding=base64&decode=schema`);
    const { records } = await readRecords(whole, 6);
    await whole.close();
    expectDecoded(records, avroId, jsonId);
    expect(records.every((record) => record.partition === 0)).toBe(true);
  });
});
