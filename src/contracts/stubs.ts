import { replicaIdsCachedMax } from "../limits.ts";
import { meteredStub } from "./billing-meter.ts";
import { registryReplicaName, registryTopic } from "./schema-registry-api.ts";
import { legacyTransactionCoordinatorName, transactionIndexName, transactionReplicaName } from "./transaction-coordinator-api.ts";

/**
 * The one place that names Durable Objects (ARCHITECTURE.md decision 2) and makes their stubs,
 * for the data plane, the router and the objects alike. A replica object is
 * `idFromName("<topicId>/<partition>/<region>")`, created with that region as its
 * `locationHint`; hints count only when an object is first created, so every `get` passes it.
 */

/**
 * A stub of the class a binding holds. The class comes from the Worker's bindings (`Env`,
 * generated from wrangler.toml into worker-configuration.d.ts, which names each class), so this
 * room of contracts imports no object: the objects sit above it (AGENTS.md, Layers).
 */
export type StubOf<Binding> =
  Binding extends DurableObjectNamespace<infer Class extends Rpc.DurableObjectBranded | undefined> ? DurableObjectStub<Class> : never;

export const controllerName = "controller";

export function controllerStub(env: Env): StubOf<Env["CONTROLLER"]> {
  return meteredStub(env, env.CONTROLLER.get(env.CONTROLLER.idFromName(controllerName)));
}

export function replicaName(topicId: string, partition: number, region: string): string {
  return `${topicId}/${partition}/${region}`;
}

/** Replica ids kept per isolate, by name, with the namespace that made them (a test may run several). */
const replicaIds = new Map<string, { namespace: DurableObjectNamespace; id: DurableObjectId }>();

/**
 * A replica's id: `idFromName` hashes the name, so ids are kept per isolate (bounded by
 * replicaIdsCachedMax, oldest dropped first). Stubs themselves are not: the runtime ties a
 * stub to the request that made it, and refuses its use from another request.
 */
function replicaId(env: Env, name: string): DurableObjectId {
  const cached = replicaIds.get(name);
  if (cached && cached.namespace === env.PARTITIONS) return cached.id;
  const id = env.PARTITIONS.idFromName(name);
  replicaIds.delete(name);
  replicaIds.set(name, { namespace: env.PARTITIONS, id });
  if (replicaIds.size > replicaIdsCachedMax) replicaIds.delete(replicaIds.keys().next().value!);
  return id;
}

export function replicaStub(
  env: Env,
  topicId: string,
  partition: number,
  region: string,
): StubOf<Env["PARTITIONS"]> {
  const id = replicaId(env, replicaName(topicId, partition, region));
  return meteredStub(env, env.PARTITIONS.get(id, { locationHint: region as DurableObjectLocationHint }));
}

/** A group's coordinator: one object per group, named by the group name (ARCHITECTURE.md decision 7). */
export function groupStub(env: Env, group: string): StubOf<Env["GROUPS"]> {
  return meteredStub(env, env.GROUPS.get(env.GROUPS.idFromName(group)));
}

/**
 * A token's quota meter: one object per scoped token, named by the token id, so that every
 * isolate serving the token charges the same buckets. No location hint: the object is made
 * near the first isolate that calls it, usually near the token's clients.
 */
export function quotaMeterStub(env: Env, tokenId: string): StubOf<Env["QUOTAS"]> {
  return meteredStub(env, env.QUOTAS.get(env.QUOTAS.idFromName(tokenId)));
}

// ---- Share groups (issue 15) ---------------------------------------------------------------

/** A share group's object (configs, its share-partitions): one per group, named by the group name. */
export function shareGroupStub(env: Env, group: string): StubOf<Env["SHARE_GROUPS"]> {
  return meteredStub(env, env.SHARE_GROUPS.get(env.SHARE_GROUPS.idFromName(group)));
}

/** The one index of share groups (GET /v1/share-groups). */
export function shareGroupIndexStub(env: Env): StubOf<Env["SHARE_GROUP_INDEX"]> {
  return meteredStub(env, env.SHARE_GROUP_INDEX.get(env.SHARE_GROUP_INDEX.idFromName("share-groups")));
}

/** A share-partition's name: the group and the topic incarnation's partition, unambiguous whatever the group name holds. */
export function sharePartitionName(group: string, topicId: string, partition: number): string {
  return JSON.stringify([group, topicId, partition]);
}

/** The name of a share-partition's state replica in one region (one per replica region of the partition). */
export function shareStateReplicaName(group: string, topicId: string, partition: number, region: string): string {
  return JSON.stringify([group, topicId, partition, region]);
}

/**
 * A share-partition's state replica in `key.region` (ARCHITECTURE.md decision 13): one per
 * replica region of the partition, created in that region (its locationHint, counted only when
 * the object is first created). The router calls the one in the partition leader's region.
 */
export function sharePartitionStub(
  env: Env,
  key: { group: string; topicId: string; partition: number; region: string },
): StubOf<Env["SHARE_PARTITIONS"]> {
  const id = env.SHARE_PARTITIONS.idFromName(shareStateReplicaName(key.group, key.topicId, key.partition, key.region));
  return meteredStub(env, env.SHARE_PARTITIONS.get(id, { locationHint: key.region as DurableObjectLocationHint }));
}

/**
 * The share-partition's object as it was before its state was replicated (one per group, topicId
 * and partition, no region): read once, by the first state replica to register the partition
 * with its group after the upgrade; cleared when the group is deleted.
 */
export function legacySharePartitionStub(
  env: Env,
  key: { group: string; topicId: string; partition: number },
): StubOf<Env["SHARE_PARTITIONS"]> {
  return meteredStub(env, env.SHARE_PARTITIONS.get(env.SHARE_PARTITIONS.idFromName(sharePartitionName(key.group, key.topicId, key.partition))));
}
/**
 * A push subscription's object: one per subscription, named by its name (docs/api.md,
 * Subscriptions). The listing lives in one more object of the namespace, under a name no
 * subscription can have (names hold no "/").
 */
export function subscriptionStub(env: Env, name: string): StubOf<Env["SUBSCRIPTIONS"]> {
  return meteredStub(env, env.SUBSCRIPTIONS.get(env.SUBSCRIPTIONS.idFromName(name)));
}

export const subscriptionIndexName = "/index";

/**
 * The schema registry before it was replicated (docs/schema-registry.md): one object per
 * deployment, `schema-registry`. Read once, by the first leader of the registry anchored to
 * `_schemas`, which takes its rows; a registry anchored elsewhere (a test's) reads the object
 * named after its anchor.
 */
export const schemaRegistryName = "schema-registry";

export function legacySchemaRegistryStub(env: Env, anchorTopic: string): StubOf<Env["SCHEMA_REGISTRY"]> {
  const name = anchorTopic === registryTopic ? schemaRegistryName : `${schemaRegistryName}-before/${anchorTopic}`;
  return meteredStub(env, env.SCHEMA_REGISTRY.get(env.SCHEMA_REGISTRY.idFromName(name)));
}

/** The registry's replica in a region (src/contracts/schema-registry-api.ts), made in that region. */
export function schemaRegistryReplicaStub(env: Env, anchorTopicId: string, region: string): StubOf<Env["SCHEMA_REGISTRY"]> {
  const id = env.SCHEMA_REGISTRY.idFromName(registryReplicaName(anchorTopicId, region));
  return meteredStub(env, env.SCHEMA_REGISTRY.get(id, { locationHint: region as DurableObjectLocationHint }));
}

/**
 * A transactional id's coordinator replica in a region (issue 28, ARCHITECTURE.md decision 17;
 * src/contracts/transaction-coordinator-api.ts), made in that region. The index of
 * transactional ids is the same class under a name no coordinator has (`transactionIndexName`).
 */
export function transactionReplicaStub(env: Env, transactionalId: string, anchorTopicId: string, region: string): StubOf<Env["TRANSACTIONS"]> {
  const id = env.TRANSACTIONS.idFromName(transactionReplicaName(transactionalId, anchorTopicId, region));
  return meteredStub(env, env.TRANSACTIONS.get(id, { locationHint: region as DurableObjectLocationHint }));
}

/** A transactional id's coordinator as it was before replication (one object per id): its state is taken once by the first replicated leader. */
export function legacyTransactionCoordinatorStub(env: Env, transactionalId: string): StubOf<Env["TRANSACTIONS"]> {
  return meteredStub(env, env.TRANSACTIONS.get(env.TRANSACTIONS.idFromName(legacyTransactionCoordinatorName(transactionalId))));
}

export function transactionIndexStub(env: Env): StubOf<Env["TRANSACTIONS"]> {
  return meteredStub(env, env.TRANSACTIONS.get(env.TRANSACTIONS.idFromName(transactionIndexName)));
}
