/**
 * The SchemaRegistry object over RPC, each test with its own replica (the deployment's registry
 * is shared by every test file): ids dense from 1 and one per schema, the global config and mode,
 * and a refused registration taking no id.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap, type Result } from "../../../src/errors.ts";
import { registryReplicaName } from "../../../src/contracts/schema-registry-api.ts";
import type { RegistryCalls } from "../../../src/data-plane/registry-calls.ts";
import { recordSchema } from "./support.ts";

let objects = 0;
/** A registry replica of its own, leading at replication factor 1 (no anchor topic: it asks no controller). */
function freshRegistry(): RegistryCalls {
  const topicId = `test-registry-${Date.now()}-${objects++}`;
  const stub = env.SCHEMA_REGISTRY.get(env.SCHEMA_REGISTRY.idFromName(registryReplicaName(topicId, "wnam")));
  const key = { topic: "test-anchor", topicId, region: "wnam", replicas: ["wnam"], isr: ["wnam"], leaderEpoch: 0 };
  const methods = stub as unknown as Record<string, (...args: unknown[]) => Promise<Result<unknown>>>;
  return new Proxy({} as RegistryCalls, { get: (_, method: string) => async (...args: unknown[]) => unwrap(await methods[method]!(key, ...args)) });
}

const schemaOf = (field: string) => ({ schema: recordSchema([{ name: field, type: "string", default: "" }]) });

describe("the registry object", () => {
  it("gives ids dense from 1, global across subjects, one per schema", async () => {
    const registry = freshRegistry();
    expect(await registry.register("a-value", schemaOf("x"), false)).toEqual({ ok: true, value: { id: 1 } });
    expect(await registry.register("b-value", schemaOf("x"), false)).toEqual({ ok: true, value: { id: 1 } });
    expect(await registry.register("b-value", schemaOf("y"), false)).toEqual({ ok: true, value: { id: 2 } });
    expect(await registry.register("a-value", schemaOf("z"), false)).toEqual({ ok: true, value: { id: 3 } });
    expect(await registry.subjects(false, "")).toEqual({ ok: true, value: ["a-value", "b-value"] });
    expect(await registry.versionsOfSchema(1, false)).toEqual({ ok: true, value: [{ subject: "a-value", version: 1 }, { subject: "b-value", version: 1 }] });
  });

  it("applies the global level to subjects without their own, and the global default back after DELETE /config", async () => {
    const registry = freshRegistry();
    expect(await registry.getConfig(undefined, false)).toEqual({ ok: true, value: { compatibilityLevel: "BACKWARD" } });
    await registry.register("s", { schema: recordSchema([{ name: "a", type: "int" }]) }, false);
    const incompatible = { schema: recordSchema([{ name: "a", type: "int" }, { name: "b", type: "int" }]) };
    expect(await registry.register("s", incompatible, false)).toMatchObject({ ok: false, error: { name: "INCOMPATIBLE_SCHEMA" } });
    expect(await registry.setConfig(undefined, "NONE")).toEqual({ ok: true, value: { compatibility: "NONE" } });
    expect(await registry.getConfig("s", true)).toEqual({ ok: true, value: { compatibilityLevel: "NONE" } });
    expect(await registry.register("s", incompatible, false)).toEqual({ ok: true, value: { id: 2 } });
    expect(await registry.deleteConfig(undefined)).toEqual({ ok: true, value: { compatibilityLevel: "NONE" } });
    expect(await registry.getConfig(undefined, false)).toEqual({ ok: true, value: { compatibilityLevel: "BACKWARD" } });
  });

  it("takes the global IMPORT mode only over an empty registry unless forced; READONLY refuses every subject", async () => {
    const registry = freshRegistry();
    expect(await registry.setMode(undefined, "IMPORT", false)).toEqual({ ok: true, value: { mode: "IMPORT" } });
    expect(await registry.register("s", { ...schemaOf("x"), id: 42 }, false)).toEqual({ ok: true, value: { id: 42 } });
    expect(await registry.setMode(undefined, "READWRITE", false)).toEqual({ ok: true, value: { mode: "READWRITE" } });
    // After an import, new ids follow the largest.
    expect(await registry.register("t", schemaOf("y"), false)).toEqual({ ok: true, value: { id: 43 } });
    expect(await registry.setMode(undefined, "IMPORT", false)).toMatchObject({ ok: false, error: { name: "OPERATION_NOT_PERMITTED" } });
    expect(await registry.setMode(undefined, "READONLY", false)).toEqual({ ok: true, value: { mode: "READONLY" } });
    expect(await registry.getMode("t", true)).toEqual({ ok: true, value: { mode: "READONLY" } });
    expect(await registry.register("u", schemaOf("z"), false)).toMatchObject({ ok: false, error: { name: "OPERATION_NOT_PERMITTED" } });
  });

  it("takes no id and makes no version for a refused registration", async () => {
    const registry = freshRegistry();
    await registry.register("s", { schema: recordSchema([{ name: "a", type: "int" }]) }, false);
    expect(await registry.register("s", { schema: recordSchema([{ name: "a", type: "string" }]) }, false)).toMatchObject({ ok: false });
    expect(await registry.versions("s", true)).toEqual({ ok: true, value: [1] });
    expect(await registry.register("other", schemaOf("x"), false)).toEqual({ ok: true, value: { id: 2 } }); // id 2 was not taken
  });
});
