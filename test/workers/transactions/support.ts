/** Helpers of the transaction coordinator's workers tests: the routes as a producer calls them. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { transactionReplicaStub } from "../../../src/contracts/stubs.ts";
import { transactionStateTopic, type TransactionKey } from "../../../src/contracts/transaction-coordinator-api.ts";
import { topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { transactionKey, transactionStatePartition } from "../../../src/data-plane/coordinator-calls.ts";
import { end } from "../../../src/transactions/transaction-machine.ts";
import type { TransactionMetadata } from "../../../src/transactions/transaction-metadata.ts";
import { api, type ApiResponse } from "../support/http.ts";

export interface Identity {
  producerId: number;
  producerEpoch: number;
}

let counter = 0;

export function uniqueTransactionalId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** The placement of the id's anchor partition, as the controller has it now (the anchor exists once an id was initialized). */
export async function coordinatorKey(transactionalId: string, anchor = transactionStateTopic): Promise<TransactionKey> {
  const topic = await topicMetadata(env, anchor, { refresh: true });
  return transactionKey(topic, transactionStatePartition(transactionalId, topic.partitions.length));
}

/** The id's leading coordinator replica. */
export async function coordinatorOf(transactionalId: string) {
  const key = await coordinatorKey(transactionalId);
  return transactionReplicaStub(env, transactionalId, key.topicId, key.region);
}

export function transactionPath(transactionalId: string, rest = ""): string {
  return `/v1/transactions/${encodeURIComponent(transactionalId)}${rest}`;
}

export async function initTransactions(transactionalId: string, transactionTimeoutMs = 60_000): Promise<Identity> {
  const response = await api("POST", transactionPath(transactionalId, "/init"), { transactionTimeoutMs });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export function sendOffsets(transactionalId: string, identity: Identity, groupId: string, offsets: { topic: string; partition: number; offset: number }[]): Promise<ApiResponse> {
  return api("POST", transactionPath(transactionalId, "/offsets"), { ...identity, groupId, offsets });
}

export function endTransaction(transactionalId: string, identity: Identity, commit: boolean): Promise<ApiResponse> {
  return api("POST", transactionPath(transactionalId, "/end"), { ...identity, commit });
}

export async function describeTransaction(transactionalId: string) {
  const response = await api("GET", transactionPath(transactionalId));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The group's committed offset of a partition (null when none), through the offsets route. */
export async function committedOffset(group: string, topic: string, partition: number): Promise<number | null> {
  const response = await api("GET", `/v1/groups/${group}/offsets`);
  expect(response.status, response.text).toBe(200);
  return response.body.offsets.find((entry: { topic: string; partition: number }) => entry.topic === topic && entry.partition === partition)?.offset ?? null;
}

/**
 * An end's turn up to its durable decision (PrepareCommit/PrepareAbort with the alarm set) and
 * nothing more: the coordinator as it is when evicted between the decision and the markers.
 */
export async function decideWithoutMarkers(transactionalId: string, identity: Identity, result: "commit" | "abort"): Promise<void> {
  await runInDurableObject(await coordinatorOf(transactionalId), async (_instance, state) => {
    const row = state.storage.sql.exec<{ metadata: string }>("SELECT metadata FROM transaction_state WHERE id = 1").one();
    const decided = end(JSON.parse(row.metadata) as TransactionMetadata, identity, result, Date.now());
    if (decided.kind !== "done") throw new Error(decided.kind);
    // As the leader writes it: a newer stamp (pushed to the followers when the restarted leader serves).
    state.storage.sql.exec("UPDATE transaction_state SET metadata = ?, stamp_version = stamp_version + 1 WHERE id = 1", JSON.stringify(decided.metadata));
    await state.storage.setAlarm(Date.now() + 60_000);
  });
}

export interface Producer extends Identity {
  transactionalId: string;
  sequence: number;
}

/** A transactional producer whose transaction holds the topic's partition 0 (its JSON sends go there). */
export async function begin(topic: string, transactionalId = uniqueTransactionalId("txn")): Promise<Producer> {
  const identity = await initTransactions(transactionalId);
  const added = await api("POST", transactionPath(transactionalId, "/partitions"), { ...identity, partitions: [{ topic, partition: 0 }] });
  expect(added.status, added.text).toBe(200);
  return { ...identity, transactionalId, sequence: 0 };
}

export async function send(topic: string, producer: Producer, values: string[]): Promise<void> {
  const { transactionalId, producerId, producerEpoch } = producer;
  const body = { records: values.map((value) => ({ value, partition: 0 })), producerId, producerEpoch, sequences: { "0": producer.sequence }, transactionalId };
  const response = await api("POST", `/v1/topics/${topic}/records`, body);
  expect(response.status, response.text).toBe(200);
  producer.sequence += values.length;
}

export async function finish(producer: Producer, commit: boolean): Promise<void> {
  const response = await endTransaction(producer.transactionalId, producer, commit);
  expect(response.status, response.text).toBe(200);
}

export async function plain(topic: string, values: string[]): Promise<void> {
  const response = await api("POST", `/v1/topics/${topic}/records`, { records: values.map((value) => ({ value, partition: 0 })) });
  expect(response.status, response.text).toBe(200);
}
