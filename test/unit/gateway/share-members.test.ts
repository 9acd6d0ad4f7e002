/**
 * ShareGroupHeartbeat's rules (src/gateway/share/members.ts): a member joins at epoch 0 with its
 * topics and is assigned every partition of them; its epoch moves only when its assignment
 * changes (a topic grown), and the assignment is answered only then; a wrong epoch is fenced,
 * an unknown member refused, a leave answers -1 and forgets the member. The topics come from a
 * session stand-in with the two calls the handler makes (the topic listing and a topic's id).
 */
import { describe, expect, it } from "vitest";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { kafkaErrors } from "../../../src/gateway/kafka-errors.ts";
import { liveMembers, shareGroupHeartbeat } from "../../../src/gateway/share/members.ts";

function contextWith(partitions: Map<string, number>): GatewayRequestContext {
  const session = {
    topics: async () => [...partitions].map(([name, count]) => ({ name, partitions: count })),
    topicId: async (name: string) => (partitions.has(name) ? new Uint8Array(16).fill(name.length) : undefined),
  };
  return { session, clientId: "kgo", clientHost: "/127.0.0.1" } as unknown as GatewayRequestContext;
}

const heartbeat = (memberEpoch: number, subscribedTopicNames: string[] | null = null, memberId = "m1") => ({ groupId: "share-g", memberId, memberEpoch, rackId: null, subscribedTopicNames });

describe("ShareGroupHeartbeat", () => {
  it("joins, is assigned every partition of its topics, and is answered the assignment only when it changes, with a new epoch", async () => {
    const topics = new Map([["orders", 3], ["mail", 1]]);
    const context = contextWith(topics);
    const joined = await shareGroupHeartbeat(heartbeat(0, ["orders", "mail", "absent"]), context);
    expect(joined).toMatchObject({ errorCode: 0, memberId: "m1", memberEpoch: 1, heartbeatIntervalMs: 5000 });
    expect((joined.assignment as { topicPartitions: { partitions: number[] }[] }).topicPartitions.map(({ partitions }) => partitions)).toEqual([[0], [0, 1, 2]]);

    expect(await shareGroupHeartbeat(heartbeat(1), context)).toMatchObject({ errorCode: 0, memberEpoch: 1, assignment: null });
    topics.set("orders", 4);
    const grown = await shareGroupHeartbeat(heartbeat(1), context);
    expect(grown).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect((grown.assignment as { topicPartitions: { partitions: number[] }[] }).topicPartitions.map(({ partitions }) => partitions)).toEqual([[0], [0, 1, 2, 3]]);
    expect(liveMembers("share-g")?.members.get("m1")).toMatchObject({ memberEpoch: 2, clientId: "kgo", topics: ["absent", "mail", "orders"] });
  });

  it("a wrong epoch is FENCED_MEMBER_EPOCH, an unknown member UNKNOWN_MEMBER_ID, a join without topics INVALID_REQUEST; a leave answers -1 and forgets the member", async () => {
    const context = contextWith(new Map([["orders", 1]]));
    await shareGroupHeartbeat(heartbeat(0, ["orders"], "m2"), context);
    const epoch = liveMembers("share-g")!.members.get("m2")!.memberEpoch;
    expect(await shareGroupHeartbeat(heartbeat(epoch + 5, null, "m2"), context)).toMatchObject({ errorCode: kafkaErrors.FENCED_MEMBER_EPOCH });
    expect(await shareGroupHeartbeat(heartbeat(1, null, "nobody"), context)).toMatchObject({ errorCode: kafkaErrors.UNKNOWN_MEMBER_ID });
    expect(await shareGroupHeartbeat(heartbeat(0, [], "m3"), context)).toMatchObject({ errorCode: kafkaErrors.INVALID_REQUEST });
    expect(await shareGroupHeartbeat(heartbeat(-1, null, "m2"), context)).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(liveMembers("share-g")?.members.has("m2") ?? false).toBe(false);
    expect(await shareGroupHeartbeat(heartbeat(epoch, null, "m2"), context)).toMatchObject({ errorCode: kafkaErrors.UNKNOWN_MEMBER_ID });
  });
});
