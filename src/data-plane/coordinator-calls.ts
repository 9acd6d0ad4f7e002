import type { Result } from "../errors.ts";
import { transactionStatePartitions } from "../limits.ts";
import { partitionForKey } from "../protocol/partitioner.ts";
import { transactionStateTopic, type TransactionKey } from "../contracts/transaction-coordinator-api.ts";
import { transactionReplicaStub, type StubOf } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callAnchored, type AnchorTopic } from "./anchored-calls.ts";
import { placementOf } from "./leader-calls.ts";

/**
 * Calls to a transactional id's coordinator (docs/transactions.md, "Replication across
 * regions"): to its replica in the region that leads the id's partition of the anchor topic
 * (`_transaction_state`, made at the deployment's replication factor by the first call), as
 * anchored-calls.ts calls any anchored state: `coordinatorCalls(env).end(id, identity, true)`.
 */

type CoordinatorStub = StubOf<Env["TRANSACTIONS"]>;

/** A coordinator replica's method, as the caller calls it: without the key, which the call adds. */
type Keyed<M> = M extends (key: TransactionKey, transactionalId: string, ...rest: infer A) => Promise<Result<infer R>> ? (transactionalId: string, ...rest: A) => Promise<R> : never;

/** The coordinator's calls (the replication's own, between replicas, are not the callers'). */
type CoordinatorMethod = "init" | "addPartitions" | "addOffsets" | "end" | "carriedWrite" | "carriedWriteFailed" | "addPartitionsForWrite" | "describe" | "abort" | "tick";

export type CoordinatorCalls = { [K in CoordinatorMethod]: Keyed<CoordinatorStub[K]> };

/** The anchor partition of a transactional id: Kafka's rule for its coordinator (the id's hash, modulo the partitions). */
export function transactionStatePartition(transactionalId: string, partitions: number): number {
  return partitionForKey(new TextEncoder().encode(transactionalId), partitions);
}

/** A coordinator's key at a placement of its anchor partition. */
export function transactionKey(topic: TopicMetadata, partition: number): TransactionKey {
  const placement = placementOf(topic, partition);
  return { topic: topic.name, topicId: topic.topicId, partition, region: placement.leader, replicas: placement.replicas, isr: placement.isr, leaderEpoch: placement.leaderEpoch };
}

/** The deployment's anchor, or a test's own (made by the test, at the partitions it chose). */
export function transactionAnchor(name: string = transactionStateTopic): AnchorTopic {
  return { name, what: "the transaction coordinator's", ...(name === transactionStateTopic ? { createWith: { partitions: transactionStatePartitions } } : {}) };
}

/** The calls, each to the transactional id's leading coordinator replica. `anchor`: the anchor topic (tests anchor their own). */
export function coordinatorCalls(env: Env, anchor: string = transactionStateTopic): CoordinatorCalls {
  const topic = transactionAnchor(anchor);
  return new Proxy({} as CoordinatorCalls, {
    get:
      (_, method: string) =>
      (transactionalId: string, ...args: unknown[]) =>
        callAnchored(env, topic, (current) => transactionStatePartition(transactionalId, current.partitions.length), (current, placement) => {
          const key = transactionKey(current, placement.partition);
          const stub = transactionReplicaStub(env, transactionalId, key.topicId, key.region) as unknown as Record<string, (...all: unknown[]) => Promise<Result<unknown>>>;
          return stub[method]!(key, transactionalId, ...args);
        }),
  });
}
