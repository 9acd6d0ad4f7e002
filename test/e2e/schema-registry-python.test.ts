/**
 * The schema registry (docs/schema-registry.md) with a serializer users have: Python
 * confluent-kafka's SchemaRegistryClient, AvroSerializer and AvroDeserializer (its `avro` extra,
 * pinned in test/python/requirements.txt) against `wrangler dev` at /registry. The program
 * (test/python/schema_registry_avro.py) prints what each call answered. It also produces through
 * `tributary gateway` (librdkafka) to a topic with schema id validation on: the serializer's
 * record is written, a raw one refused with Kafka's INVALID_RECORD (87).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runPython } from "./support/python-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "registry-e2e-admin";

describe("Python confluent-kafka's schema registry client and Avro serializer", () => {
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

  it("registers, serializes in Confluent's wire format, deserializes by id, checks compatibility and deletes, with its bearer token; the gateway refuses a raw record on a validated topic", async () => {
    const topic = `orders-${Date.now().toString(36)}`;
    const created = await fetch(`${server.url}/v1/topics`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: topic, configs: { "confluent.value.schema.validation": "true" } }),
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
    expect(out.gateway).toEqual({ serialized: null, raw: { code: 87, name: "INVALID_RECORD", retriable: false } });
    const written = await fetch(`${server.url}/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64`, { headers: { authorization: `Bearer ${adminToken}` } });
    const records = ((await written.json()) as { records: { value: string }[] }).records;
    expect(records.map((record) => Buffer.from(record.value, "base64")[0])).toEqual([0]); // the serialized record only
  });
});
