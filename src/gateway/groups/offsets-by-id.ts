/**
 * OffsetCommit and OffsetFetch v10 (and TxnOffsetCommit v6) name topics by id (Metadata's, the Tributary topic's UUID),
 * as the Java client 4.x sends them: the ids are resolved to names through the session, the
 * commit or fetch goes as by name (offsets.ts), and the answer names each topic by its id
 * again, in request order. An id no topic has is UNKNOWN_TOPIC_ID for each of its partitions,
 * as Kafka's broker answers; the others are committed or read as usual.
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";
import type { OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse, OffsetFetchTopicAnswer, OffsetFetchTopics } from "./messages.ts";


/** Each topic's name, undefined for an id no topic has. */
function namesOf(topics: readonly { topicId?: Uint8Array }[], context: GatewayRequestContext): Promise<(string | undefined)[]> {
  return Promise.all(topics.map(({ topicId }) => (topicId === undefined ? undefined : context.session.topicNamed(topicId))));
}

/** A commit naming its topics by id (OffsetCommit v10, TxnOffsetCommit v6), and its answer by name. */
type CommitById = { topics: { name: string; topicId?: Uint8Array; partitions: { partitionIndex: number }[] }[] };
type CommitAnswer = { topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] };

export async function offsetCommitById<Request extends CommitById>(
  request: Request,
  context: GatewayRequestContext,
  byName: (request: Request) => Promise<CommitAnswer>,
): Promise<OffsetCommitResponse> {
  const topics = request.topics;
  const names = await namesOf(topics, context);
  const known = topics.flatMap((topic, index) => (names[index] === undefined ? [] : [{ ...topic, name: names[index]! }]));
  const answered = known.length === 0 ? [] : (await byName({ ...request, topics: known })).topics;
  let next = 0;
  return {
    throttleTimeMs: 0,
    topics: topics.map((topic, index) => {
      if (names[index] === undefined) return { name: "", topicId: topic.topicId, partitions: topic.partitions.map(({ partitionIndex }) => ({ partitionIndex, errorCode: kafkaErrors.UNKNOWN_TOPIC_ID })) };
      return { ...answered[next++]!, topicId: topic.topicId };
    }),
  };
}

export async function offsetFetchById(
  request: OffsetFetchRequest,
  context: GatewayRequestContext,
  fetchGroup: (groupId: string, topics: OffsetFetchTopics[] | null) => Promise<{ topics: OffsetFetchTopicAnswer[]; errorCode: number }>,
): Promise<OffsetFetchResponse> {
  const groups = await Promise.all(
    (request.groups ?? []).map(async ({ groupId, topics }) => {
      if (topics === null) {
        // Every committed topic, each named by its id (one whose id cannot be had any more is left out).
        const answer = await fetchGroup(groupId, null);
        const ids = await Promise.all(answer.topics.map(({ name }) => context.session.topicId(name)));
        return { groupId, errorCode: answer.errorCode, topics: answer.topics.flatMap((topic, index) => (ids[index] === undefined ? [] : [{ ...topic, name: "", topicId: ids[index] }])) };
      }
      const asked = topics;
      const names = await namesOf(asked, context);
      const known = asked.flatMap((topic, index) => (names[index] === undefined ? [] : [{ ...topic, name: names[index]! }]));
      const answer = known.length === 0 ? { topics: [], errorCode: 0 } : await fetchGroup(groupId, known);
      const byName = new Map(answer.topics.map((topic) => [topic.name, topic]));
      return {
        groupId,
        errorCode: answer.errorCode,
        topics: asked.map((topic, index) => {
          const unknown = (partitionIndex: number) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: kafkaErrors.UNKNOWN_TOPIC_ID });
          const found = names[index] === undefined ? undefined : byName.get(names[index]!);
          return { name: "", topicId: topic.topicId, partitions: found?.partitions ?? topic.partitionIndexes.map(unknown) };
        }),
      };
    }),
  );
  return { throttleTimeMs: 0, groups };
}

