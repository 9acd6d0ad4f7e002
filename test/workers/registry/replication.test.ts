/**
 * The schema registry replicated across regions (issue 30; docs/schema-registry.md,
 * "Replication across regions"): one replica per replica region of an anchor partition, the
 * one in its leader's region leading at its leader epoch. Each test anchors a registry of its
 * own to a topic it makes at replication factor 3 (the deployment's registry, anchored to
 * `_schemas`, is shared by every test file); the loss of the leader's region is a fault on
 * that region's partition replica (the controller's election) and on its registry replica.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/errors.ts";
import type { RegistryKey } from "../../../src/contracts/schema-registry-api.ts";
import { controllerStub, legacySchemaRegistryStub, replicaStub, schemaRegistryReplicaStub } from "../../../src/contracts/stubs.ts";
import { registryCalls, registryKey } from "../../../src/data-plane/registry-calls.ts";
import { unwrapRegistry } from "../../../src/registry-api/registry-responses.ts";
import { rejection } from "../support/rejections.ts";
import { api, createTopic, uniqueTopic } from "../support/http.ts";
import { recordSchema } from "./support.ts";

const schemaOf = (...fields: string[]) => ({ schema: recordSchema(fields.map((name) => ({ name, type: "string", default: "" }))) });

async function anchorPlacement(topic: string) {
  return unwrap(await controllerStub(env).describeTopic(topic));
}

/** A region lost: its partition replica (the controller elects another leader) and its registry replica. */
async function setRegionFault(topic: string, topicId: string, region: string, fault: "down" | "none") {
  const response = await api("POST", "/v1/faults", { topic, partition: 0, replica: region, fault });
  expect(response.status, response.text).toBe(204);
  unwrap(await schemaRegistryReplicaStub(env, topicId, region).setFault(fault, 0));
}

async function replicationState(topicId: string, region: string) {
  return unwrap(await schemaRegistryReplicaStub(env, topicId, region).replicationState());
}

/** What a replica holds, whatever its place: its rows. */
async function rowsAt(topicId: string, region: string) {
  return unwrap(await schemaRegistryReplicaStub(env, topicId, region).legacyRows());
}

describe("the schema registry replicated across regions", () => {
  it("survives the loss of the leader's region: every acknowledged registration served by the new leader, ids dense, the old leader's late write refused", async () => {
    const anchor = uniqueTopic("registry-anchor");
    const created = await createTopic(anchor, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const registry = registryCalls(env, anchor);
    expect(unwrapRegistry(await registry.register("orders-value", schemaOf("a"), false))).toEqual({ id: 1 });
    expect(unwrapRegistry(await registry.register("users-value", schemaOf("b"), false))).toEqual({ id: 2 });
    expect(unwrapRegistry(await registry.register("orders-value", schemaOf("a", "c"), false))).toEqual({ id: 3 });
    expect(unwrapRegistry(await registry.setConfig("users-value", "NONE"))).toEqual({ compatibility: "NONE" });

    // Acknowledged: every region's replica holds the leader's stamp (acks "all").
    const before = (await anchorPlacement(anchor)).partitions[0]!;
    const leaderState = await replicationState(created.topicId, before.leader);
    expect(leaderState).toMatchObject({ leadingEpoch: before.leaderEpoch, stamp: { epoch: before.leaderEpoch, version: 4 } });
    for (const region of before.replicas) expect((await replicationState(created.topicId, region)).stamp).toEqual(leaderState.stamp);

    await setRegionFault(anchor, created.topicId, before.leader, "down");
    // The leader's replica does not answer: reported to the controller, which elects another region; retriable.
    expect(await rejection(registry.subjects(false, ""))).toBe("LEADER_NOT_AVAILABLE");
    const elected = (await anchorPlacement(anchor)).partitions[0]!;
    expect(elected.leader).not.toBe(before.leader);
    expect(elected.leaderEpoch).toBeGreaterThan(before.leaderEpoch);

    // The new leader serves everything acknowledged, and new ids follow densely.
    expect(unwrapRegistry(await registry.subjects(false, ""))).toEqual(["orders-value", "users-value"]);
    expect(unwrapRegistry(await registry.versions("orders-value", false))).toEqual([1, 2]);
    expect(unwrapRegistry(await registry.version("orders-value", "2", false))).toMatchObject({ id: 3, version: 2 });
    expect(unwrapRegistry(await registry.getConfig("users-value", false))).toEqual({ compatibilityLevel: "NONE" });
    expect(unwrapRegistry(await registry.schemaById(2))).toMatchObject({ schema: schemaOf("b").schema });
    expect(unwrapRegistry(await registry.register("payments-value", schemaOf("d"), false))).toEqual({ id: 4 });
    expect(await replicationState(created.topicId, elected.leader)).toMatchObject({ leadingEpoch: elected.leaderEpoch, stamp: { epoch: elected.leaderEpoch } });

    // The old leader's region comes back; a caller with the old placement writes there: refused, nothing acknowledged.
    await setRegionFault(anchor, created.topicId, before.leader, "none");
    const staleKey: RegistryKey = { topic: anchor, topicId: created.topicId, region: before.leader, replicas: before.replicas, isr: before.isr, leaderEpoch: before.leaderEpoch };
    const late = await schemaRegistryReplicaStub(env, created.topicId, before.leader).register(staleKey, "late-value", schemaOf("e"), false);
    expect(late).toMatchObject({ ok: false, error: { code: "NOT_LEADER_OR_FOLLOWER" } });
    expect(await replicationState(created.topicId, before.leader)).toMatchObject({ seenEpoch: elected.leaderEpoch });

    // Never seen at the leader; the next id is 5, and id 4 stays the schema acknowledged as 4.
    expect(unwrapRegistry(await registry.subjects(false, ""))).toEqual(["orders-value", "payments-value", "users-value"]);
    expect(unwrapRegistry(await registry.register("late-value", schemaOf("f"), false))).toEqual({ id: 5 });
    expect(unwrapRegistry(await registry.schemaById(4))).toMatchObject({ schema: schemaOf("d").schema, subjects: ["payments-value"] });
  });

  it("commits a write only once every in-sync replica stores it; a replica that missed one gets the whole registry before anything is served", async () => {
    const anchor = uniqueTopic("registry-anchor");
    const created = await createTopic(anchor, { replicationFactor: 3 });
    const registry = registryCalls(env, anchor);
    expect(unwrapRegistry(await registry.register("a-value", schemaOf("a"), false))).toEqual({ id: 1 });
    const key = registryKey(await anchorPlacement(anchor));
    const follower = key.replicas.find((region) => region !== key.region)!;
    const followerStub = schemaRegistryReplicaStub(env, created.topicId, follower);

    // An in-sync replica does not answer: the registration is not acknowledged, and not served either.
    unwrap(await followerStub.setFault("down", 0));
    expect(await rejection(registry.register("b-value", schemaOf("b"), false))).toBe("NOT_ENOUGH_REPLICAS");
    expect(await rejection(registry.subjects(false, ""))).toBe("NOT_ENOUGH_REPLICAS");

    // It answers again: it missed a change, so it is sent the whole registry, then the leader serves.
    unwrap(await followerStub.setFault("none", 0));
    expect(unwrapRegistry(await registry.subjects(false, ""))).toEqual(["a-value", "b-value"]);
    expect(await rowsAt(created.topicId, follower)).toEqual(await rowsAt(created.topicId, key.region));
    expect((await replicationState(created.topicId, follower)).stamp).toEqual({ epoch: key.leaderEpoch, version: 2 });
    expect(unwrapRegistry(await registry.register("c-value", schemaOf("c"), false))).toEqual({ id: 3 });
    for (const region of key.replicas) expect((await rowsAt(created.topicId, region)).schemas.map((schema) => schema.id)).toEqual([1, 2, 3]);
  });

  it("stays available when a follower's region is lost: the anchor's log drops the silent follower from the ISR, then the registry serves without it", async () => {
    const anchor = uniqueTopic("registry-anchor");
    const created = await createTopic(anchor, { replicationFactor: 3, configs: { "replica.lag.time.max.ms": "500" } });
    const registry = registryCalls(env, anchor);
    expect(unwrapRegistry(await registry.register("a-value", schemaOf("a"), false))).toEqual({ id: 1 });
    const { leader, replicas } = (await anchorPlacement(anchor)).partitions[0]!;
    const follower = replicas.find((region) => region !== leader)!;

    await setRegionFault(anchor, created.topicId, follower, "down");
    expect(await rejection(registry.register("b-value", schemaOf("b"), false))).toBe("NOT_ENOUGH_REPLICAS");
    // The refusal wrote a record to the anchor: its leader finds the follower behind and drops it after replica.lag.time.max.ms.
    for (let attempt = 0; attempt < 40 && (await anchorPlacement(anchor)).partitions[0]!.isr.includes(follower); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await runDurableObjectAlarm(replicaStub(env, created.topicId, 0, leader));
    }
    expect((await anchorPlacement(anchor)).partitions[0]!.isr).not.toContain(follower);
    // Served without it (the refused registration had landed at the leader: now committed, its id kept); new ids follow.
    // The first call after the shrink may still carry the router's cached ISR (at most 5 s) and be refused once more.
    const subjects = await registry.subjects(false, "").catch(async (error: unknown) => {
      expect(error).toMatchObject({ code: "NOT_ENOUGH_REPLICAS" });
      return registry.subjects(false, "");
    });
    expect(unwrapRegistry(subjects)).toEqual(["a-value", "b-value"]);
    expect(unwrapRegistry(await registry.register("c-value", schemaOf("c"), false))).toEqual({ id: 3 });
    await setRegionFault(anchor, created.topicId, follower, "none");
  });

  it("takes the registry as it was before replication (one object) at its first leader, once, and replicates it", async () => {
    const anchor = uniqueTopic("registry-anchor");
    const created = await createTopic(anchor, { replicationFactor: 3 });
    const before = { schemaType: "AVRO", schema: schemaOf("old").schema, references: [] };
    const legacy = legacySchemaRegistryStub(env, anchor);
    unwrap(await legacy.installRows({ epoch: 0, version: 1, payload: null }, { schemas: [{ id: 7, ...before }], versions: [{ subject: "old-value", version: 1, schemaId: 7, deleted: false }], settings: [{ subject: undefined, key: "compatibility", value: "NONE" }] }));

    const registry = registryCalls(env, anchor);
    expect(unwrapRegistry(await registry.version("old-value", "latest", false))).toMatchObject({ id: 7, version: 1 });
    expect(unwrapRegistry(await registry.getConfig(undefined, false))).toEqual({ compatibilityLevel: "NONE" });
    expect(unwrapRegistry(await registry.register("new-value", schemaOf("new"), false))).toEqual({ id: 8 });
    for (const region of created.partitions[0]!.replicas) expect((await rowsAt(created.topicId, region)).schemas.map((schema) => schema.id)).toEqual([7, 8]);
  });
});
