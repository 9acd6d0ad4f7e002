/**
 * Kafka's DeleteRecords from the Worker's side (docs/api.md, Delete records): the partition's
 * leader moves its log start (src/objects/record-deletions.ts). Repeating the call is safe (a
 * start already there is answered as it is), so an unanswered leader is called once more.
 */
import type { DeleteRecordsAnswer } from "../contracts/replica-api.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { callLeader } from "./leader-calls.ts";

export async function deleteRecords(env: Env, topic: TopicMetadata, partition: number, beforeOffset: number): Promise<DeleteRecordsAnswer> {
  return callLeader(env, topic, partition, (stub, call) => stub.deleteRecords({ ...call, beforeOffset }), { retryUnreachable: true });
}
