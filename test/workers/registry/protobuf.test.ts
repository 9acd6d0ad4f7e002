/**
 * PROTOBUF schemas through Confluent's API at /registry (docs/schema-registry.md): `.proto` text
 * with imports through references, stored printed back (one id whatever the layout), lookup,
 * Confluent's Protobuf compatibility rules at registration.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { expectRegistryError, register, registeredId, registry, uniqueSubject } from "./support.ts";
import { produceJson, wire } from "./wire-support.ts";

const money = `syntax = "proto3";
package common;

// Cents, never floats.
message Money {
  int64 cents = 1;
  string currency = 2;
}
`;

const order = (extra = "") => `syntax = "proto3";
package shop;
import "common/money.proto";
import "google/protobuf/timestamp.proto";

message Order {
  string id = 1;
  common.Money total = 2;
  google.protobuf.Timestamp placed_at = 3;
  ${extra}
}
`;

describe("PROTOBUF schemas", () => {
  it("registers a .proto file whose import is a reference, stored printed back: the same file laid out otherwise is the same id", async () => {
    const moneySubject = uniqueSubject("money");
    const moneyId = await registeredId(moneySubject, money, { schemaType: "PROTOBUF" });
    const references = [{ name: "common/money.proto", subject: moneySubject, version: 1 }];
    const subject = uniqueSubject("order");
    const id = await registeredId(subject, order(), { schemaType: "PROTOBUF", references });
    expect(id).not.toBe(moneyId);
    const byId = await registry("GET", `/schemas/ids/${id}`);
    expect(byId.body).toMatchObject({ schemaType: "PROTOBUF", references });
    expect(byId.body.schema).toContain("  common.Money total = 2;");
    expect((await registry("GET", `/schemas/ids/${moneyId}`)).body.schema).not.toContain("Cents");
    const relaid = `// the same order\n${order().replace(/\n\s*/g, " ")}`;
    expect(await registeredId(subject, relaid, { schemaType: "PROTOBUF", references })).toBe(id);
    expect((await registry("POST", `/subjects/${subject}`, { schema: relaid, schemaType: "PROTOBUF", references })).body).toMatchObject({ id, version: 1, schemaType: "PROTOBUF" });
    expect((await registry("GET", `/subjects/${moneySubject}/versions/1/referencedby`)).body).toEqual([id]);

    // format=serialized, as Confluent's Protobuf serializers ask: the FileDescriptorProto in base64,
    // by id and by subject version; its dependencies are the imports, its types fully qualified.
    const serialized = (await registry("GET", `/schemas/ids/${id}?format=serialized`)).body;
    expect(serialized).toMatchObject({ schemaType: "PROTOBUF", references });
    const descriptor = atob(serialized.schema);
    expect(descriptor).toContain("common/money.proto");
    expect(descriptor).toContain(".common.Money");
    expect(descriptor).toContain(".google.protobuf.Timestamp");
    expect((await registry("GET", `/subjects/${subject}/versions/1?format=serialized`)).body.schema).toBe(serialized.schema);
    expect(atob((await registry("GET", `/subjects/${moneySubject}/versions/latest?format=serialized`)).body.schema)).toContain("Money");
    expect((await registry("GET", `/schemas/ids/${id}?format=other`)).body.schema).toBe(byId.body.schema);
  });

  it("refuses an import without a reference and invalid text with 42201 naming the line; accepts the well-known types without one", async () => {
    expect(expectRegistryError(await register(uniqueSubject(), order(), { schemaType: "PROTOBUF" }), 422, 42201)).toMatch(/import "common\/money.proto" is neither/);
    expect(expectRegistryError(await register(uniqueSubject(), 'syntax = "proto3";\nmessage M {\n  strin a = 1;\n}', { schemaType: "PROTOBUF" }), 422, 42201)).toMatch(/line 3: field a's type strin is not defined/);
    await registeredId(uniqueSubject(), 'syntax = "proto3"; import "google/protobuf/wrappers.proto"; message M { google.protobuf.StringValue a = 1; }', { schemaType: "PROTOBUF" });
  });

  it("normalize=true stores the normalized form: a file with its fields reordered is the same schema", async () => {
    const subject = uniqueSubject();
    const a = 'syntax = "proto3"; message M { int32 b = 2; string a = 1; }';
    const b = 'syntax = "proto3"; message M { string a = 1; int32 b = 2; }';
    const id = await registeredId(subject, a, { schemaType: "PROTOBUF" }, "?normalize=true");
    expect(await registeredId(subject, b, { schemaType: "PROTOBUF" }, "?normalize=true")).toBe(id);
    expect((await registry("GET", `/subjects/${subject}/versions`)).body).toEqual([1]);
    // The same file as a FileDescriptorProto in base64 (what Confluent's Python serializer registers): the same schema.
    const serialized = (await registry("GET", `/schemas/ids/${id}?format=serialized`)).body.schema;
    expect(await registeredId(uniqueSubject(), serialized, { schemaType: "PROTOBUF" }, "?normalize=true")).toBe(id);
    const asText = (await registry("GET", `/schemas/ids/${await registeredId(uniqueSubject(), serialized, { schemaType: "PROTOBUF" })}`)).body.schema;
    expect(asText).toContain("message M {\n  string a = 1;\n  int32 b = 2;\n}");
  });

  it("checks Confluent's Protobuf rules at registration: a field's type changed across scalar groups is 409, a field added is a new version", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, 'syntax = "proto3"; message M { int64 a = 1; }', { schemaType: "PROTOBUF" });
    const changed = 'syntax = "proto3"; message M { string a = 1; }';
    expect(expectRegistryError(await register(subject, changed, { schemaType: "PROTOBUF" }), 409, 409)).toMatch(/FIELD_SCALAR_KIND_CHANGED/);
    const verdict = await registry("POST", `/compatibility/subjects/${subject}/versions/latest?verbose=true`, { schema: changed, schemaType: "PROTOBUF" });
    expect(verdict.body.is_compatible).toBe(false);
    await registeredId(subject, 'syntax = "proto3"; message M { uint64 a = 1; string b = 2; }', { schemaType: "PROTOBUF" });
    expect((await registry("GET", `/subjects/${subject}/versions`)).body).toEqual([1, 2]);
  });

  it("full validation and decode=schema read Protobuf data: message indexes, then the message; data that does not conform is refused, nothing written", async () => {
    const topic = uniqueTopic("full-proto");
    await createTopic(topic, { configs: { "tributary.value.schema.validation": "full" } });
    const id = await registeredId(`${topic}-value`, 'syntax = "proto3"; message Order { string id = 1; int64 cents = 2; message Line { int32 n = 1; } }', { schemaType: "PROTOBUF" });
    const order = [0, 0x0a, 2, 0x6f, 0x31, 0x10, 0xac, 0x02]; // indexes [0]; id "o1", cents 300
    const line = [4, 0, 0, 0x08, 5]; // indexes [0, 0]: Order.Line, n 5
    const written = await produceJson(topic, [{ value: wire(id, order) }, { value: wire(id, line) }]);
    expect(written.status, written.text).toBe(200);
    const refused = expectError(await produceJson(topic, [{ value: wire(id, order) }, { value: wire(id, [0, 0x0a, 9, 0x6f]) }]), 400, "INVALID_RECORD");
    expect(refused.message).toMatch(/^record 1: value does not conform to schema id \d+ \(PROTOBUF\) at \/id: the datum ends inside a string of 9 bytes/);
    const read = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64&decode=schema`);
    expect(read.body.records.map((record: { value: unknown; valueSchemaId: number }) => [record.value, record.valueSchemaId])).toEqual([
      [{ id: "o1", cents: 300 }, id],
      [{ n: 5 }, id],
    ]);
  });

  it("schema id validation with RecordNameStrategy takes a Protobuf record's message from its message indexes", async () => {
    const topic = uniqueTopic("proto-record-name");
    await createTopic(topic, { configs: { "confluent.value.schema.validation": "true", "confluent.value.subject.name.strategy": "RecordNameStrategy" } });
    const packageName = topic.replace(/[^A-Za-z0-9]/g, "");
    const id = await registeredId(`${packageName}.Refund`, `syntax = "proto3"; package ${packageName}; message Order { string id = 1; } message Refund { string id = 1; }`, { schemaType: "PROTOBUF" });
    const refund = [2, 2, 0x0a, 1, 0x72]; // indexes [1]: Refund
    expect((await produceJson(topic, [{ value: wire(id, refund) }])).status).toBe(200);
    const first = expectError(await produceJson(topic, [{ value: wire(id, [0, 0x0a, 1, 0x6f]) }]), 400, "INVALID_RECORD"); // indexes [0]: Order
    expect(first.message).toContain(`not registered under subject "${packageName}.Order" (RecordNameStrategy)`);
    const none = expectError(await produceJson(topic, [{ value: wire(id, [2, 8]) }]), 400, "INVALID_RECORD"); // indexes [4]: no such message
    expect(none.message).toMatch(/no message at message indexes 4/);
  });
});
