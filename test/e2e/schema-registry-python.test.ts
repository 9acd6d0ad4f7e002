/**
 * The schema registry (docs/schema-registry.md) with a serializer users have: Python
 * confluent-kafka's SchemaRegistryClient, AvroSerializer and AvroDeserializer (its `avro` extra,
 * pinned in test/python/requirements.txt) against `wrangler dev` at /registry. The program
 * (test/python/schema_registry_avro.py) prints what each call answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPython } from "./support/python-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "registry-e2e-admin";

describe("Python confluent-kafka's schema registry client and Avro serializer", () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("registers, serializes in Confluent's wire format, deserializes by id, checks compatibility and deletes, with its bearer token", async () => {
    const run = await runPython("schema_registry_avro.py", [`${server.url}/registry`, `orders-${Date.now().toString(36)}`, adminToken]);
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
  });
});
