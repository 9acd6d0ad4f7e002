/**
 * Kafka's DescribeProducers from the Worker's side (docs/api.md, Transactions): the partition
 * leader's active producers (src/log/active-producers.ts). A read, so an unanswered leader is
 * called once more.
 */
import type { ActiveProducer } from "../log/active-producers.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader } from "./leader-calls.ts";

export async function describeProducers(env: Env, topic: TopicMetadata, partition: number): Promise<ActiveProducer[]> {
  return callLeader(env, topic, partition, (stub, call) => stub.producers(call), { retryUnreachable: true });
}
