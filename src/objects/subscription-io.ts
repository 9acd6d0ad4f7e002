import { TributaryError } from "../errors.ts";
import { subscriptionAnswerBytesMax, subscriptionBatchBytesMax, subscriptionDeliveryTimeoutMs } from "../limits.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { SubscriptionTarget } from "../protocol/subscription-schemas.ts";
import { callLeader, routedCall } from "../data-plane/leader-calls.ts";
import { serviceTarget } from "../contracts/push-target.ts";
import { replicaStub } from "../contracts/stubs.ts";
import { produce } from "../data-plane/produce.ts";
import { listOffset, readPartition } from "../data-plane/partition-reads.ts";
import { acknowledgementsOf, acknowledgementsOfText } from "../subscriptions/delivery-answer.ts";
import type { DeliveryBatch } from "../subscriptions/delivery-batch.ts";
import type { DeliveryOutcome } from "../subscriptions/delivery-plan.ts";
import { deadLetterRecord, type DeadLetterSource } from "../subscriptions/dead-letter-records.ts";
import { checkWebhookUrl } from "../subscriptions/target-origins.ts";
import { signatureHeader, signWebhook } from "../protocol/webhook-signature.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/**
 * The Subscription object's calls out (src/objects/subscription.ts): a subscription is a
 * consumer of the log, so it reads, lists offsets and produces dead letters through the same
 * leader calls as the router (src/data-plane/leader-calls.ts: stale metadata refreshed, failover
 * reported), and calls its target — a webhook with fetch, or a Worker's `deliver` over its
 * service binding.
 */

/** Records at `offset` at the subscription's isolation (whole stored batches' records, up to `maxRecords` and `maxBytes` of payload), without waiting. */
export async function readRecords(env: Env, topic: TopicMetadata, partition: number, isolation: Isolation, offset: number, maxRecords: number, maxBytes = subscriptionBatchBytesMax) {
  return readPartition(env, topic, partition, { offset, maxRecords, maxBytes, waitMs: 0, isolation });
}

/** An offset of the partition; `latest` at read_committed is the last stable offset (so a subscription from latest misses no transaction open at its start). */
export async function offsetAt(env: Env, topic: TopicMetadata, partition: number, at: "earliest" | "latest", isolation?: Isolation): Promise<number> {
  return (await listOffset(env, topic, partition, at, isolation)).offset;
}

/**
 * Registers with the partition's leader to be woken past `position`, and answers its high
 * watermark; with its other in-sync replicas too (best effort), so that a follower elected
 * leader wakes the subscription as well: only a leader sends wakes.
 */
export async function watchPartition(env: Env, topic: TopicMetadata, partition: number, subscription: string, position: number): Promise<number> {
  const followers = (topic.partitions[partition]?.isr ?? []).filter((region) => region !== topic.partitions[partition]?.leader);
  const [answer] = await Promise.all([
    callLeader(env, topic, partition, (stub, call) => stub.watchCommits({ ...call, subscription, position }), { retryUnreachable: true }),
    Promise.allSettled(followers.map((region) => replicaStub(env, topic.topicId, partition, region).watchCommits({ ...routedCall(topic, partition, region), subscription, position, asFollower: true }))),
  ]);
  return answer.highWatermark;
}

export async function unwatchPartition(env: Env, topic: TopicMetadata, partition: number, subscription: string): Promise<void> {
  const replicas = topic.partitions[partition]?.replicas ?? [];
  await Promise.allSettled(replicas.map((region) => replicaStub(env, topic.topicId, partition, region).unwatchCommits({ topicId: topic.topicId, partition, region, subscription })));
}

/** Writes records given up on to the dead-letter topic (acks "all"), before the source moves past them. */
export async function writeDeadLetters(env: Env, ctx: DurableObjectState, deadLetterTopic: string, records: readonly DecodedRecord[], source: DeadLetterSource): Promise<void> {
  if (records.length === 0) return;
  const request = { records: records.map((record) => deadLetterRecord(record, source)), acks: "all" as const, encoding: "base64" as const };
  await produce(env, { waitUntil: (promise) => ctx.waitUntil(promise) }, deadLetterTopic, request);
}

/** One delivery to the target: its outcome, never a throw. */
export async function deliver(env: Env, target: SubscriptionTarget, batch: DeliveryBatch): Promise<DeliveryOutcome> {
  try {
    return "url" in target ? await deliverToWebhook(env, target, batch) : await deliverToService(env, target.service, batch);
  } catch (error) {
    return { kind: "failed", error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

async function deliverToWebhook(env: Env, target: { url: string; secret?: string | undefined }, batch: DeliveryBatch): Promise<DeliveryOutcome> {
  checkWebhookUrl(target.url, env.SUBSCRIPTION_ORIGINS); // the allow-list may have shrunk since the subscription was made
  const body = JSON.stringify(batch);
  const headers = new Headers({ "content-type": "application/json" });
  if (target.secret) headers.set(signatureHeader, await signWebhook(target.secret, Date.now(), body));
  const response = await fetch(target.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(subscriptionDeliveryTimeoutMs) });
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    return { kind: "failed", error: `the webhook answered HTTP ${response.status}` };
  }
  return { kind: "answered", acks: acknowledgementsOfText(await boundedText(response)) };
}

/** The answer's first subscriptionAnswerBytesMax bytes: a longer body is only a 2xx. */
async function boundedText(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > subscriptionAnswerBytesMax || !response.body) {
    await response.body?.cancel();
    return "";
  }
  const text = await response.text();
  return text.length > subscriptionAnswerBytesMax ? "" : text;
}

async function deliverToService(env: Env, binding: string, batch: DeliveryBatch): Promise<DeliveryOutcome> {
  const target = serviceTarget(env, binding);
  if (!target) throw new TributaryError("INVALID_REQUEST", `no Worker is bound as ${binding} in this deployment's wrangler config`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deliver() did not answer in ${subscriptionDeliveryTimeoutMs} ms`)), subscriptionDeliveryTimeoutMs);
  });
  try {
    return { kind: "answered", acks: acknowledgementsOf(await Promise.race([target.deliver(batch), timeout])) };
  } finally {
    clearTimeout(timer);
  }
}
