/**
 * The one place that names Durable Objects (ARCHITECTURE.md decision 2). A replica object is
 * `idFromName("<topicId>/<partition>/<region>")`, created with that region as its
 * `locationHint`; hints count only when an object is first created, so every `get` passes it.
 */
export const controllerName = "controller";

export function controllerStub(env: Env): DurableObjectStub<import("./controller.ts").Controller> {
  return env.CONTROLLER.get(env.CONTROLLER.idFromName(controllerName));
}

export function replicaName(topicId: string, partition: number, region: string): string {
  return `${topicId}/${partition}/${region}`;
}

export function replicaStub(
  env: Env,
  topicId: string,
  partition: number,
  region: string,
): DurableObjectStub<import("./partition-replica.ts").PartitionReplica> {
  const id = env.PARTITIONS.idFromName(replicaName(topicId, partition, region));
  return env.PARTITIONS.get(id, { locationHint: region as DurableObjectLocationHint });
}

/** A group's coordinator: one object per group, named by the group name (ARCHITECTURE.md decision 7). */
export function groupStub(env: Env, group: string): DurableObjectStub<import("./group-coordinator.ts").GroupCoordinator> {
  return env.GROUPS.get(env.GROUPS.idFromName(group));
}

/**
 * A token's quota meter: one object per scoped token, named by the token id, so that every
 * isolate serving the token charges the same buckets. No location hint: the object is made
 * near the first isolate that calls it, usually near the token's clients.
 */
export function quotaMeterStub(env: Env, tokenId: string): DurableObjectStub<import("./quota-meter.ts").QuotaMeter> {
  return env.QUOTAS.get(env.QUOTAS.idFromName(tokenId));
}
