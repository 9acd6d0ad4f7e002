/**
 * Classic members (the Kafka gateway's JoinGroup members) over HTTP: a heartbeat with
 * `classic: true` moves nothing and answers `rebalance`; a commit with `classic: true` takes
 * the partitions a member is giving up, at its current epoch only.
 */
import { describe, expect, it } from "vitest";
import { expectError } from "../support/http.ts";
import { commitRaw, groupOffsets, heartbeat, heartbeatRaw, join, partitionsOf, topicWith, uniqueGroup } from "./support/groups.ts";

describe("classic members", () => {
  it("a classic heartbeat says rebalance instead of revoking; the rejoin revokes; commits of given-up partitions pass, a classic member's at its current epoch only", async () => {
    const topic = await topicWith(4, "classic");
    const group = uniqueGroup("classic");
    const first = await join(group, [topic]);
    const second = await join(group, [topic]);
    const checked = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch, classic: true });
    expect(checked).toMatchObject({ memberEpoch: first.memberEpoch, rebalance: true });
    expect(partitionsOf(checked.assignment, topic)).toEqual([0, 1, 2, 3]);

    // A cooperative rejoin: the current epoch with all it holds; it keeps 2 partitions, gives up 2.
    const owned = [{ topic, partitions: [0, 1, 2, 3] }];
    const rejoined = await heartbeat(group, first.memberId, { memberEpoch: first.memberEpoch, ownedPartitions: owned });
    const kept = partitionsOf(rejoined.assignment, topic);
    const givenUp = [0, 1, 2, 3].filter((partition) => !kept.includes(partition));
    expect(kept).toHaveLength(2);
    const offsets = givenUp.map((partition) => ({ topic, partition, offset: 7 }));
    // A member's own commit of what it is giving up passes, at the epoch before too (one sent before the answer arrived);
    // a classic member's only at its current epoch.
    const plain = await commitRaw(group, { memberId: first.memberId, memberEpoch: first.memberEpoch, offsets: offsets.map((entry) => ({ ...entry, offset: 5 })) });
    expect(plain.status, plain.text).toBe(204);
    expect((await groupOffsets(group)).filter((entry) => entry.offset === 5).map((entry) => entry.partition)).toEqual(givenUp);
    const stale = await commitRaw(group, { memberId: first.memberId, memberEpoch: first.memberEpoch, classic: true, offsets });
    expectError(stale, 409, "FENCED_MEMBER_EPOCH");
    const classic = await commitRaw(group, { memberId: first.memberId, memberEpoch: rejoined.memberEpoch, classic: true, offsets });
    expect(classic.status, classic.text).toBe(204);
    expect((await groupOffsets(group)).filter((entry) => entry.offset === 7).map((entry) => entry.partition)).toEqual(givenUp);

    const waiting = await heartbeat(group, second.memberId, { memberEpoch: second.memberEpoch, classic: true });
    expect(waiting).toMatchObject({ rebalance: false });
    expect(await heartbeat(group, first.memberId, { memberEpoch: rejoined.memberEpoch, classic: true })).toMatchObject({ rebalance: true });
  });

  it("a classic heartbeat at another epoch is FENCED_MEMBER_EPOCH; a classic commit needs a member", async () => {
    const topic = await topicWith(1, "classic-fenced");
    const group = uniqueGroup("classic-fenced");
    const member = await join(group, [topic]);
    expectError(await heartbeatRaw(group, member.memberId, { memberEpoch: member.memberEpoch + 1, classic: true }), 409, "FENCED_MEMBER_EPOCH");
    expectError(await commitRaw(group, { classic: true, offsets: [{ topic, partition: 0, offset: 1 }] }), 400, "INVALID_REQUEST");
  });

  it("a heartbeat with topics changes the subscription; unknown topics are refused and change nothing", async () => {
    const orders = await topicWith(2, "subscribe-orders");
    const audit = await topicWith(1, "subscribe-audit");
    const group = uniqueGroup("subscribe");
    const member = await join(group, [orders]);
    const moved = await heartbeat(group, member.memberId, { memberEpoch: 0, topics: [audit] });
    expect(moved.assignment).toEqual([{ topic: audit, partitions: [0] }]);
    expectError(await heartbeatRaw(group, member.memberId, { memberEpoch: moved.memberEpoch, topics: [audit, "no-such-topic"] }), 404, "UNKNOWN_TOPIC_OR_PARTITION");
    const both = await heartbeat(group, member.memberId, { memberEpoch: moved.memberEpoch, topics: [orders, audit] });
    expect(both.assignment).toEqual([
      { topic: orders, partitions: [0, 1] },
      { topic: audit, partitions: [0] },
    ].sort((a, b) => (a.topic < b.topic ? -1 : 1)));
  });
});
