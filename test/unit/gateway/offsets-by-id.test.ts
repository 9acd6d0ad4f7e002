/**
 * OffsetCommit and OffsetFetch v10 (src/gateway/groups/offsets-by-id.ts): topic ids resolved to
 * names for the commit or fetch by name, the answer named by id again in request order; an id
 * no topic has is UNKNOWN_TOPIC_ID for each of its partitions, the others go through.
 */
import { describe, expect, it } from "vitest";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { kafkaErrors } from "../../../src/gateway/kafka-errors.ts";
import { offsetCommitById, offsetFetchById } from "../../../src/gateway/groups/offsets-by-id.ts";
import type { OffsetCommitRequest, OffsetFetchTopics } from "../../../src/gateway/groups/messages.ts";

const idOf = (name: string) => new Uint8Array(16).fill(name.length);
const topics = new Map([["orders", idOf("orders")], ["mail", idOf("mail")]]);
const context = {
  session: {
    topicNamed: async (id: Uint8Array) => [...topics].find(([, candidate]) => Buffer.from(candidate).equals(Buffer.from(id)))?.[0],
    topicId: async (name: string) => topics.get(name),
  },
} as unknown as GatewayRequestContext;

describe("offsets by topic id (v10)", () => {
  it("commits the known topics by name and answers every topic by its id, an unknown one UNKNOWN_TOPIC_ID", async () => {
    const partitions = [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: "" }];
    const request: OffsetCommitRequest = {
      groupId: "g",
      topics: [
        { name: "", topicId: idOf("mail"), partitions },
        { name: "", topicId: idOf("x"), partitions },
        { name: "", topicId: idOf("orders"), partitions },
      ],
    };
    let named: string[] = [];
    const answer = await offsetCommitById(request, context, async (byName) => {
      named = byName.topics.map(({ name }) => name);
      return { throttleTimeMs: 0, topics: byName.topics.map(({ name }) => ({ name, partitions: [{ partitionIndex: 0, errorCode: 0 }] })) };
    });
    expect(named).toEqual(["mail", "orders"]);
    expect(answer.topics.map(({ topicId, partitions }) => [topicId, partitions[0]!.errorCode])).toEqual([
      [idOf("mail"), 0],
      [idOf("x"), kafkaErrors.UNKNOWN_TOPIC_ID],
      [idOf("orders"), 0],
    ]);
  });

  it("fetches the named topics by name, answers them by id; all committed topics (null) by their ids", async () => {
    const fetched: (OffsetFetchTopics[] | null)[] = [];
    const fetchGroup = async (_group: string, asked: OffsetFetchTopics[] | null) => {
      fetched.push(asked);
      const names = asked === null ? ["orders"] : asked.map(({ name }) => name);
      return { errorCode: 0, topics: names.map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: 1, metadata: "", errorCode: 0 }] })) };
    };
    const answer = await offsetFetchById({ groups: [{ groupId: "g", topics: [{ name: "", topicId: idOf("x"), partitionIndexes: [0, 1] }, { name: "", topicId: idOf("orders"), partitionIndexes: [0] }] }] }, context, fetchGroup);
    expect(fetched[0]!.map(({ name }) => name)).toEqual(["orders"]);
    const [unknown, orders] = answer.groups![0]!.topics;
    expect(unknown).toMatchObject({ topicId: idOf("x"), partitions: [{ partitionIndex: 0, errorCode: kafkaErrors.UNKNOWN_TOPIC_ID }, { partitionIndex: 1, errorCode: kafkaErrors.UNKNOWN_TOPIC_ID }] });
    expect(orders).toMatchObject({ topicId: idOf("orders"), partitions: [{ committedOffset: 7n, committedLeaderEpoch: 1 }] });

    const all = await offsetFetchById({ groups: [{ groupId: "g", topics: null }] }, context, fetchGroup);
    expect(all.groups![0]!.topics.map(({ topicId }) => topicId)).toEqual([idOf("orders")]);
  });
});
