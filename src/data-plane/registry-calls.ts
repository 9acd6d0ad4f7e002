import type { Result } from "../errors.ts";
import type { RegistryResult } from "../registry/registry-errors.ts";
import { registryTopic, type RegistryKey } from "../contracts/schema-registry-api.ts";
import { schemaRegistryReplicaStub, type StubOf } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { placementOf } from "./leader-calls.ts";
import { callAnchored, type AnchorTopic } from "./anchored-calls.ts";

/**
 * Calls to the schema registry (docs/schema-registry.md, "Replication across regions"): to the
 * replica in the region that leads partition 0 of the anchor topic (`_schemas`, created at the
 * deployment's replication factor by the first call), as anchored-calls.ts calls any anchored
 * state; a leader that does not answer is LEADER_NOT_AVAILABLE (the registry's 50003).
 */

type RegistryStub = StubOf<Env["SCHEMA_REGISTRY"]>;

/** A registry replica's method, as the caller calls it: without the key, which the call adds. */
type Keyed<M> = M extends (key: RegistryKey, ...rest: infer A) => Promise<Result<infer R extends RegistryResult<unknown>>> ? (...rest: A) => Promise<R> : never;

/** The registry's calls (the replication's own, between replicas, are not the callers'). */
type RegistryMethod =
  | "subjects"
  | "versions"
  | "version"
  | "referencedBy"
  | "register"
  | "lookup"
  | "deleteVersion"
  | "deleteSubject"
  | "schemaById"
  | "schemasForValidation"
  | "schemaTexts"
  | "versionsOfSchema"
  | "testCompatibility"
  | "getConfig"
  | "setConfig"
  | "deleteConfig"
  | "getMode"
  | "setMode"
  | "deleteMode";

export type RegistryCalls = { [K in RegistryMethod]: Keyed<RegistryStub[K]> };

/** The registry's key at a placement of its anchor partition. */
export function registryKey(topic: TopicMetadata): RegistryKey {
  const placement = placementOf(topic, 0);
  return { topic: topic.name, topicId: topic.topicId, region: placement.leader, replicas: placement.replicas, isr: placement.isr, leaderEpoch: placement.leaderEpoch };
}

/** Calls the leading replica (docs/schema-registry.md, "Replication across regions"); answers the registry's own result. */
function callRegistry<R>(env: Env, anchor: string, action: (stub: RegistryStub, key: RegistryKey) => Promise<Result<R>>): Promise<R> {
  const topic: AnchorTopic = { name: anchor, what: "the schema registry's", ...(anchor === registryTopic ? { createWith: { partitions: 1 } } : {}) };
  return callAnchored(env, topic, () => 0, (current) => {
    const key = registryKey(current);
    return action(schemaRegistryReplicaStub(env, key.topicId, key.region), key);
  });
}

/**
 * The registry's calls, each to the leading replica: `registryCalls(env).register(subject, …)`.
 * `anchor`: the anchor topic (tests anchor a registry of their own to a topic they made).
 */
export function registryCalls(env: Env, anchor: string = registryTopic): RegistryCalls {
  return new Proxy({} as RegistryCalls, {
    get: (_, method: string) =>
      (...args: unknown[]) =>
        callRegistry(env, anchor, (stub, key) => (stub as unknown as Record<string, (...all: unknown[]) => Promise<Result<unknown>>>)[method]!(key, ...args)),
  });
}
