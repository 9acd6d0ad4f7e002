import { TributaryError, unwrap, type Result } from "../errors.ts";
import type { RegistryResult } from "../registry/registry-errors.ts";
import { registryTopic, type RegistryKey } from "../contracts/schema-registry-api.ts";
import { controllerStub, schemaRegistryReplicaStub, type StubOf } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callWithOneRetry, placementOf } from "./leader-calls.ts";
import { rememberTopic, topicMetadata } from "./metadata-cache.ts";

/**
 * Calls to the schema registry (docs/schema-registry.md, "Replication across regions"): to the
 * replica in the region that leads partition 0 of the anchor topic (`_schemas`, created at the
 * deployment's replication factor by the first call), with that placement, in the loop calls
 * to a partition's leader take (callWithOneRetry in leader-calls.ts): a stale answer
 * (NOT_LEADER_OR_FOLLOWER) refreshes the metadata and calls once more; a replica that does not
 * answer is reported to the controller, which elects a new leader when the anchor's leader is
 * really gone, and the call is answered with a retriable LEADER_NOT_AVAILABLE (the registry's
 * 50003), never called again (its write may have landed).
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

/** The anchor topic's metadata; `_schemas` is created at the deployment's defaults (one partition) when missing. */
async function anchorTopic(env: Env, anchor: string): Promise<TopicMetadata> {
  try {
    return await topicMetadata(env, anchor);
  } catch (error) {
    if (!(error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION" && anchor === registryTopic)) throw error;
  }
  try {
    const topic = unwrap(await controllerStub(env).createTopic({ name: anchor, partitions: 1 }));
    rememberTopic(topic);
    return topic;
  } catch (error) {
    if (error instanceof TributaryError && error.code === "TOPIC_ALREADY_EXISTS") return topicMetadata(env, anchor, { refresh: true }); // another router made it
    throw error;
  }
}

/** Calls the leading replica (see above); answers the registry's own result. */
async function callRegistry<R>(env: Env, anchor: string, action: (stub: RegistryStub, key: RegistryKey) => Promise<Result<R>>): Promise<R> {
  const topic = await anchorTopic(env, anchor);
  try {
    return await callWithOneRetry(
      env,
      topic,
      0,
      (current) => {
        const key = registryKey(current);
        return action(schemaRegistryReplicaStub(env, key.topicId, key.region), key);
      },
      {
        retryOn: (error) => error.code === "NOT_LEADER_OR_FOLLOWER",
        retryUnreachable: false,
        unreachable: (_, placement) => `the schema registry's replica in ${placement.leader} did not answer; retry shortly`,
      },
    );
  } catch (error) {
    // An in-sync replica did not answer: nothing committed; the ISR may shrink meanwhile, and the next call should know it.
    if (error instanceof TributaryError && error.code === "NOT_ENOUGH_REPLICAS") await topicMetadata(env, anchor, { refresh: true });
    throw error;
  }
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
