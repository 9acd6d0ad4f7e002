import { TributaryError, unwrap, type Result } from "../errors.ts";
import { controllerStub } from "../contracts/stubs.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";
import { callWithOneRetry } from "./leader-calls.ts";
import { rememberTopic, topicMetadata } from "./metadata-cache.ts";

/**
 * Calls to state replicated across regions and anchored to a partition of an internal topic
 * (the schema registry's `_schemas`, the transaction coordinators' `_transaction_state`;
 * src/replication/state-replication.ts): to the replica in the region that leads the anchor
 * partition, with that placement, in the loop calls to a partition's leader take
 * (callWithOneRetry in leader-calls.ts): a stale answer (NOT_LEADER_OR_FOLLOWER) refreshes the
 * metadata and calls once more; a replica that does not answer is reported to the controller,
 * which elects a new leader when the anchor's leader is really gone, and the call is answered
 * with a retriable LEADER_NOT_AVAILABLE, never called again (its write may have landed).
 */

/** An anchor topic; `partitions` when the first call makes it (at the deployment's replication factor). */
export interface AnchorTopic {
  name: string;
  /** Set for the deployment's own anchor, made on first use; a test's anchor is its own to make. */
  createWith?: { partitions: number };
  /** What the state is, for messages: "the schema registry's". */
  what: string;
}

/** The anchor topic's metadata, made when missing and `createWith` says so. */
export async function anchorTopic(env: Env, anchor: AnchorTopic): Promise<TopicMetadata> {
  try {
    return await topicMetadata(env, anchor.name);
  } catch (error) {
    if (!(error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION" && anchor.createWith !== undefined)) throw error;
  }
  try {
    const topic = unwrap(await controllerStub(env).createTopic({ name: anchor.name, partitions: anchor.createWith.partitions }));
    rememberTopic(topic);
    return topic;
  } catch (error) {
    if (error instanceof TributaryError && error.code === "TOPIC_ALREADY_EXISTS") return topicMetadata(env, anchor.name, { refresh: true }); // another router made it
    throw error;
  }
}

/** Calls the replica leading the anchor's partition (`partitionOf` the topic; see above): `call` gets the placement to call with. */
export async function callAnchored<R>(
  env: Env,
  anchor: AnchorTopic,
  partitionOf: (topic: TopicMetadata) => number,
  call: (topic: TopicMetadata, placement: PartitionPlacement) => Promise<Result<R>>,
): Promise<R> {
  const topic = await anchorTopic(env, anchor);
  try {
    return await callWithOneRetry(env, topic, partitionOf(topic), call, {
      retryOn: (error) => error.code === "NOT_LEADER_OR_FOLLOWER",
      retryUnreachable: false,
      unreachable: (_, placement) => `${anchor.what} replica in ${placement.leader} did not answer; retry shortly`,
    });
  } catch (error) {
    // An in-sync replica did not answer: nothing committed; the ISR may shrink meanwhile, and the next call should know it.
    if (error instanceof TributaryError && error.code === "NOT_ENOUGH_REPLICAS") await topicMetadata(env, anchor.name, { refresh: true });
    throw error;
  }
}
