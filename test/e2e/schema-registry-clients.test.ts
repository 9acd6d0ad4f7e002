/**
 * The schema registry (docs/schema-registry.md) with the serializers users have, against one
 * `wrangler dev` at /registry and one `tributary gateway`:
 *
 * - Python confluent-kafka's SchemaRegistryClient, AvroSerializer and AvroDeserializer (its
 *   `avro` extra, pinned in test/python/requirements.txt). The program
 *   (test/python/schema_registry_avro.py) prints what each call answered. It also produces
 *   through the gateway (librdkafka) to a topic with schema id and full validation on: the
 *   serializer's record is written (and read back with decode=schema), a raw one and one whose
 *   data is cut short refused with Kafka's INVALID_RECORD (87). Its JSONSerializer and
 *   JSONDeserializer (the `json` extra; test/python/schema_registry_json.py) with a schema that
 *   references another: registered with its reference, resolved through the registry, a record
 *   breaking the referenced schema refused by the serializer and, through the gateway, by full
 *   validation. Its ProtobufSerializer and ProtobufDeserializer (the `protobuf` extra;
 *   test/python/schema_registry_protobuf.py): an imported file registered as a reference, the
 *   message indexes of a file's second message, a record cut short refused by full validation.
 * - JavaScript's @confluentinc/schemaregistry (its client's calls, the Avro, JSON and Protobuf
 *   serializers and deserializers, a JSON schema with a reference, a Protobuf file importing another) and @kafkajs/confluent-schema-registry
 *   (encode and decode), pinned in test/serializers and installed by test/e2e/support/js-serializers.ts; their records produced
 *   through Tributary's client and through kafkajs and the gateway to a validated topic.
 */
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { serializersRequire } from "./support/js-serializers.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runPython } from "./support/python-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "registry-e2e-admin";

describe("the schema registry with the serializers users have", () => {
  let server: DevServer;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    gateway = await startGateway(server.url, { token: adminToken });
  });

  afterAll(async () => {
    const code = await gateway?.stop();
    await server?.stop();
    expect(code).toBe(0);
  });

  it("registers, serializes in Confluent's wire format, deserializes by id, checks compatibility and deletes, with its bearer token; the gateway refuses a raw record, and one whose data does not conform, on a validated topic", async () => {
    const topic = `orders-${Date.now().toString(36)}`;
    const created = await fetch(`${server.url}/v1/topics`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: topic, configs: { "confluent.value.schema.validation": "true", "tributary.value.schema.validation": "full" } }),
    });
    expect(created.status, await created.text()).toBe(201);
    const run = await runPython("schema_registry_avro.py", [`${server.url}/registry`, topic, adminToken, gateway.address]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.magic).toBe(0);
    expect(out.wire_id).toBe(out.registered_id);
    expect(out.decoded).toEqual({ id: 7, item: "tea" });
    expect(out.lookup).toMatchObject({ id: out.registered_id, version: 1 });
    expect(out.compatible_v2).toBe(true);
    expect(out.compatible_v3).toBe(false);
    expect(out.v2_id).toBeGreaterThan(out.registered_id);
    expect(out.v3_error).toEqual({ http: 409, code: 409 });
    expect(out.latest).toEqual({ version: 2, id: out.v2_id });
    expect(out.versions).toEqual([1, 2]);
    expect(out.subjects_has).toBe(true);
    expect(out.get_compatibility).toBe("FULL");
    expect(out.missing_error).toEqual({ http: 404, code: 40403 });
    expect(out.json_schema_type).toBe("JSON");
    expect(out.deleted).toEqual([1, 2]);
    expect(out.anonymous_error).toEqual({ http: 401, code: 40101 });
    const refused = { code: 87, name: "INVALID_RECORD", retriable: false };
    expect(out.gateway).toEqual({ serialized: null, raw: refused, nonconforming: refused });
    // The serialized record only, read back decoded by its schema (decode=schema).
    const written = await fetch(`${server.url}/v1/topics/${topic}/partitions/0/records?offset=0&decode=schema`, { headers: { authorization: `Bearer ${adminToken}` } });
    const records = ((await written.json()) as { records: { value: unknown; valueSchemaId?: number }[] }).records;
    expect(records).toEqual([expect.objectContaining({ value: { id: 7, item: "tea" }, valueSchemaId: out.wire_id })]);

    // The JSON serializer, its schema naming another by reference, to a topic with full validation.
    const customers = `customers-${Date.now().toString(36)}`;
    const fullValidation = await fetch(`${server.url}/v1/topics`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: customers, configs: { "tributary.value.schema.validation": "full" } }),
    });
    expect(fullValidation.status, await fullValidation.text()).toBe(201);
    const jsonRun = await runPython("schema_registry_json.py", [`${server.url}/registry`, customers, adminToken, gateway.address]);
    expect(jsonRun.code, jsonRun.stderr).toBe(0);
    const json = JSON.parse(jsonRun.stdout);
    expect(json.magic).toBe(0);
    expect(json.registered).toEqual({ id: json.wire_id, references: [{ name: "address.json", subject: `${customers}-address`, version: 1 }] });
    expect(json.referenced_by).toEqual([json.wire_id]);
    expect(json.serializer_refused).toBe(true);
    const customer = { name: "Ada", address: { street: "Main St", zip: "12345" } };
    expect(json.decoded).toEqual(customer);
    expect(json.gateway).toEqual({ serialized: null, breaks_reference: { code: 87, name: "INVALID_RECORD", retriable: false } });
    const customerRecords = await fetch(`${server.url}/v1/topics/${customers}/partitions/0/records?offset=0&decode=schema`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await customerRecords.json()) as { records: { value: unknown }[] }).records).toEqual([expect.objectContaining({ value: customer, valueSchemaId: json.wire_id })]);

    // The Protobuf serializer: its file imports another (a reference) and Google's timestamp.proto (known to the registry).
    const protoTopic = `proto-orders-${Date.now().toString(36)}`;
    const protoCreated = await fetch(`${server.url}/v1/topics`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: protoTopic, configs: { "tributary.value.schema.validation": "full" } }),
    });
    expect(protoCreated.status, await protoCreated.text()).toBe(201);
    const protoRun = await runPython("schema_registry_protobuf.py", [`${server.url}/registry`, protoTopic, adminToken, gateway.address]);
    expect(protoRun.code, protoRun.stderr).toBe(0);
    const proto = JSON.parse(protoRun.stdout);
    const addressFile = `${protoTopic}/address.proto`;
    expect(proto).toMatchObject({ magic: 0, indexes_byte: 2, index_byte: 2, address_subjects: [addressFile], referenced_by: [proto.wire_id] });
    expect(proto.registered).toEqual({ id: proto.wire_id, type: "PROTOBUF", references: [{ name: addressFile, subject: addressFile, version: 1 }] });
    expect(proto.decoded).toEqual({ id: 7, item: "tea", street: "Main St", zip: "12345", placed: 1_700_000_000, tags: ["hot", "green"] });
    expect(proto.gateway).toEqual({ serialized: null, cut_short: { code: 87, name: "INVALID_RECORD", retriable: false } });
    const orderRecords = await fetch(`${server.url}/v1/topics/${protoTopic}/partitions/0/records?offset=0&decode=schema`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await orderRecords.json()) as { records: { value: unknown }[] }).records).toEqual([
      expect.objectContaining({
        value: { id: 7, item: "tea", address: { street: "Main St", zip: "12345" }, placed: { seconds: 1_700_000_000 }, tags: ["hot", "green"] },
        valueSchemaId: proto.wire_id,
      }),
    ]);
  });

  it("JavaScript: @confluentinc/schemaregistry registers, looks up, tests compatibility and configures; its Avro, JSON and Protobuf serdes and @kafkajs/confluent-schema-registry's encode and decode round-trip; their records are written through the client and kafkajs, a raw one refused with nothing written", async () => {
    const load = await serializersRequire();
    const confluent = load("@confluentinc/schemaregistry");
    const { SchemaRegistry, SchemaType, COMPATIBILITY } = load("@kafkajs/confluent-schema-registry");
    const tributary = new Tributary({ url: server.url, token: adminToken, logLevel: "nothing" });
    const topic = `js-orders-${Date.now().toString(36)}`;
    await tributary.admin().topics.create({ name: topic, partitions: 1, configs: { "confluent.value.schema.validation": "true" } });
    const subject = `${topic}-value`;
    const order = (extra: object[] = [], id = "long") =>
      JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields: [{ name: "id", type: id }, { name: "item", type: "string" }, ...extra] });

    // Confluent's client, with its static bearer token.
    const client = new confluent.SchemaRegistryClient({
      baseURLs: [`${server.url}/registry`],
      bearerAuthCredentials: { credentialsSource: "STATIC_TOKEN", token: adminToken, logicalCluster: "tributary", identityPoolId: "unused" },
    });
    const avro = (schema: string) => ({ schemaType: "AVRO", schema });
    const id = await client.register(subject, avro(order()));
    expect(await client.getId(subject, avro(order()))).toBe(id);
    expect(await client.testSubjectCompatibility(subject, avro(order([{ name: "qty", type: "int", default: 1 }])))).toBe(true);
    expect(await client.testSubjectCompatibility(subject, avro(order([], "string")))).toBe(false);
    expect(await client.updateCompatibility(subject, "FULL")).toBe("FULL");
    expect(await client.getCompatibility(subject)).toBe("FULL");
    expect(await client.getLatestSchemaMetadata(subject)).toMatchObject({ id, version: 1, subject });
    expect(await client.getAllVersions(subject)).toEqual([1]);
    expect(JSON.parse((await client.getBySubjectAndId(subject, id)).schema)).toMatchObject({ name: "Order" });

    const serializer = new confluent.AvroSerializer(client, confluent.SerdeType.VALUE, { useLatestVersion: true });
    const confluentBytes: Buffer = await serializer.serialize(topic, { id: 7, item: "tea" });
    expect([confluentBytes[0], confluentBytes.readInt32BE(1)]).toEqual([0, id]);
    const deserializer = new confluent.AvroDeserializer(client, confluent.SerdeType.VALUE, {});
    expect(await deserializer.deserialize(topic, confluentBytes)).toEqual({ id: 7, item: "tea" });

    const jsonTopic = `${topic}-json`;
    const jsonId = await client.register(`${jsonTopic}-value`, { schemaType: "JSON", schema: JSON.stringify({ type: "object", properties: { sku: { type: "string" } }, required: ["sku"] }) });
    const jsonBytes: Buffer = await new confluent.JsonSerializer(client, confluent.SerdeType.VALUE, { useLatestVersion: true }).serialize(jsonTopic, { sku: "A-1" });
    expect([jsonBytes[0], jsonBytes.readInt32BE(1)]).toEqual([0, jsonId]);
    expect(await new confluent.JsonDeserializer(client, confluent.SerdeType.VALUE, {}).deserialize(jsonTopic, jsonBytes)).toEqual({ sku: "A-1" });
    // A JSON schema with a reference, registered and resolved as Confluent's JSON serializer does: the $ref, relative to the
    // referrer's $id, names the reference (its serializer's ajv finds it by that name and refuses data the reference refuses).
    const addressSubject = `${jsonTopic}-address`;
    await client.register(addressSubject, { schemaType: "JSON", schema: JSON.stringify({ type: "object", properties: { street: { type: "string" } }, required: ["street"] }) });
    const customerTopic = `${jsonTopic}-customer`;
    const customer = { $id: "https://example.com/customer.json", type: "object", properties: { address: { $ref: "address.json" } }, required: ["address"] };
    const references = [{ name: "https://example.com/address.json", subject: addressSubject, version: 1 }];
    const customerId = await client.register(`${customerTopic}-value`, { schemaType: "JSON", schema: JSON.stringify(customer), references });
    expect((await client.getLatestSchemaMetadata(`${customerTopic}-value`)).references).toEqual(references);
    const customerSerializer = new confluent.JsonSerializer(client, confluent.SerdeType.VALUE, { useLatestVersion: true, validate: true });
    const customerBytes: Buffer = await customerSerializer.serialize(customerTopic, { address: { street: "Main St" } });
    expect(customerBytes.readInt32BE(1)).toBe(customerId);
    await expect(customerSerializer.serialize(customerTopic, { address: { street: 1 } })).rejects.toThrow(/Invalid message/);
    expect(await new confluent.JsonDeserializer(client, confluent.SerdeType.VALUE, {}).deserialize(customerTopic, customerBytes)).toEqual({ address: { street: "Main St" } });

    // Its Protobuf serializer (@bufbuild/protobuf messages): the imported file registered as a reference, Google's skipped.
    const protoTopic = `${topic}-proto`;
    await tributary.admin().topics.create({ name: protoTopic, partitions: 1, configs: { "tributary.value.schema.validation": "full" } });
    const { files, Order } = protobufOrders(load, protoTopic);
    const protoSerializer = new confluent.ProtobufSerializer(client, confluent.SerdeType.VALUE, { autoRegisterSchemas: true, registry: load("@bufbuild/protobuf").createMutableRegistry(files) });
    const protoMessage = load("@bufbuild/protobuf").create(Order, { id: 7n, item: "tea", address: { street: "Main St", zip: "12345" }, placed: { seconds: 1_700_000_000n }, tags: ["hot"] });
    const protoBytes: Buffer = await protoSerializer.serialize(protoTopic, protoMessage);
    const protoLatest = await client.getLatestSchemaMetadata(`${protoTopic}-value`);
    expect([protoBytes[0], protoBytes.readInt32BE(1), protoBytes[5], protoBytes[6]]).toEqual([0, protoLatest.id, 2, 2]); // message indexes [1]: the file's second message
    expect(protoLatest).toMatchObject({ schemaType: "PROTOBUF", references: [{ name: `${protoTopic}/address.proto`, subject: `${protoTopic}/address.proto`, version: 1 }] });
    const protoSchema = { schemaType: "PROTOBUF", schema: protoLatest.schema, references: protoLatest.references };
    expect(await client.getId(`${protoTopic}-value`, protoSchema)).toBe(protoLatest.id);
    expect(await client.testSubjectCompatibility(`${protoTopic}-value`, { ...protoSchema, schema: protoLatest.schema.replace("int64 id = 1;", "string id = 1;") })).toBe(false);
    expect(await client.testSubjectCompatibility(`${protoTopic}-value`, { ...protoSchema, schema: protoLatest.schema.replace("repeated string tags = 5;", "repeated string tags = 5;\n  string note = 6;") })).toBe(true);
    const protoDeserializer = new confluent.ProtobufDeserializer(client, confluent.SerdeType.VALUE, {});
    const decodedProto = await protoDeserializer.deserialize(protoTopic, protoBytes);
    expect([decodedProto.$typeName, decodedProto.id, decodedProto.address.zip, decodedProto.placed.seconds, decodedProto.tags]).toEqual(["shop.Order", 7n, "12345", 1_700_000_000n, ["hot"]]);

    // kafkajs's registry library, its bearer token sent by a middleware (it has basic authentication only).
    const bearer = () => ({ request: (request: { enhance(change: object): unknown }) => request.enhance({ headers: { Authorization: `Bearer ${adminToken}` } }) });
    const registry = new SchemaRegistry({ host: `${server.url}/registry`, middlewares: [bearer] });
    expect(await registry.getLatestSchemaId(subject)).toBe(id);
    const { id: sameId } = await registry.register({ type: SchemaType.AVRO, schema: order() }, { subject, compatibility: COMPATIBILITY.FULL });
    expect(sameId).toBe(id); // the same schema under the subject: its id
    const kafkajsBytes: Buffer = await registry.encode(id, { id: 8, item: "mate" });
    expect(await registry.decode(kafkajsBytes)).toEqual({ id: 8, item: "mate" });
    expect(await registry.decode(confluentBytes)).toEqual({ id: 7, item: "tea" }); // one wire format
    const { id: jsonSchemaId } = await registry.register({ type: SchemaType.JSON, schema: JSON.stringify({ type: "object", properties: { n: { type: "integer" } } }) }, { subject: `${topic}-js-json-value` });
    expect(await registry.decode(await registry.encode(jsonSchemaId, { n: 3 }))).toEqual({ n: 3 });

    // Written to the validated topic through Tributary's client and through kafkajs and the gateway.
    await tributary.producer({ lingerMs: 0 }).send({ topic, messages: [{ value: confluentBytes, partition: 0 }] });
    await tributary.producer({ lingerMs: 0 }).send({ topic: protoTopic, messages: [{ value: protoBytes, partition: 0 }] });
    const plainTopic = `${topic}-plain`;
    await tributary.admin().topics.create({ name: plainTopic, partitions: 1 });
    await tributary.producer({ lingerMs: 0 }).send({ topic: plainTopic, messages: [{ value: confluentBytes, partition: 0 }] });
    const kafka = new Kafka({ brokers: [gateway.address], clientId: "registry-e2e", logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ value: kafkajsBytes, partition: 0 }] });
      await expect(producer.send({ topic, messages: [{ value: "raw", partition: 0 }] })).rejects.toMatchObject({ type: "INVALID_RECORD" });
      // Validation off (the default): the serialized records and a raw one are all written, as to any topic.
      await producer.send({ topic: plainTopic, messages: [{ value: kafkajsBytes, partition: 0 }, { value: "raw", partition: 0 }, { value: protoBytes, partition: 0 }] });
      await producer.send({ topic: protoTopic, messages: [{ value: protoBytes, partition: 0 }] });
      // The registered id and indexes, the message cut inside its last field: full validation refuses it.
      await expect(producer.send({ topic: protoTopic, messages: [{ value: protoBytes.subarray(0, -2), partition: 0 }] })).rejects.toMatchObject({ type: "INVALID_RECORD" });
    } finally {
      await producer.disconnect();
    }
    await expect(tributary.producer({ lingerMs: 0 }).send({ topic, messages: [{ value: "raw", partition: 0 }] })).rejects.toMatchObject({ code: "INVALID_RECORD" });
    const { records } = await tributary.topic(topic).fetch(0, 0);
    expect(await Promise.all(records.map((record) => deserializer.deserialize(topic, Buffer.from(record.value!))))).toEqual([{ id: 7, item: "tea" }, { id: 8, item: "mate" }]);
    const protoRecords = (await tributary.topic(protoTopic).fetch(0, 0)).records;
    const protoRead = await Promise.all(protoRecords.map(async (record) => (await protoDeserializer.deserialize(protoTopic, Buffer.from(record.value!))).item));
    expect(protoRead).toEqual(["tea", "tea"]);
    const plain = (await tributary.topic(plainTopic).fetch(0, 0)).records.map((record) => Buffer.from(record.value!));
    expect(plain).toEqual([confluentBytes, kafkajsBytes, Buffer.from("raw"), protoBytes]);
  });
});

/**
 * Message classes of @bufbuild/protobuf (what @confluentinc/schemaregistry's Protobuf serializer
 * takes), built at run time from FileDescriptorProtos, no protoc: `<prefix>/address.proto` with an
 * Address, and `<prefix>/order.proto` importing it and Google's timestamp.proto, its second message
 * the Order. @bufbuild/protobuf is the serializer's own dependency, its version fixed by
 * test/serializers' lockfile.
 */
function protobufOrders(load: NodeJS.Require, prefix: string) {
  const { create, createFileRegistry } = load("@bufbuild/protobuf");
  const wkt = load("@bufbuild/protobuf/wkt");
  const { FieldDescriptorProto_Type: type, FieldDescriptorProto_Label: label } = wkt;
  const field = (name: string, number: number, fieldType: number, extra: object = {}) => ({ name, number, type: fieldType, label: label.OPTIONAL, jsonName: name, ...extra });
  const address = { name: `${prefix}/address.proto`, package: "shop", syntax: "proto3", messageType: [{ name: "Address", field: [field("street", 1, type.STRING), field("zip", 2, type.STRING)] }] };
  const order = {
    name: `${prefix}/order.proto`,
    package: "shop",
    syntax: "proto3",
    dependency: [address.name, "google/protobuf/timestamp.proto"],
    messageType: [
      { name: "Note", field: [field("text", 1, type.STRING)] },
      {
        name: "Order",
        field: [
          field("id", 1, type.INT64),
          field("item", 2, type.STRING),
          field("address", 3, type.MESSAGE, { typeName: ".shop.Address" }),
          field("placed", 4, type.MESSAGE, { typeName: ".google.protobuf.Timestamp" }),
          field("tags", 5, type.STRING, { label: label.REPEATED }),
        ],
      },
    ],
  };
  const file = (proto: object) => create(wkt.FileDescriptorProtoSchema, proto);
  const files = createFileRegistry(create(wkt.FileDescriptorSetSchema, { file: [wkt.file_google_protobuf_timestamp.proto, file(address), file(order)] }));
  return { files, Order: files.getMessage("shop.Order") };
}
