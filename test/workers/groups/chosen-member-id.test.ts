/**
 * Join with the member id the member chose (API.md, Consumer groups: join's `memberId`; Kafka's
 * KIP-1082, as the Kafka gateway's KIP-848 members join): a new member under it, a rejoin of the
 * member that has it, and the ids refused.
 */
import { describe, expect, it } from "vitest";
import { expectError } from "../support/http.ts";
import { describeGroup, heartbeat, join, joinRaw, topicWith, uniqueGroup } from "./support/groups.ts";

describe("join with memberId", () => {
  it("joins a new member under the chosen id; heartbeats and describe know it by that id", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("chosen");
    const joined = await join(group, [topic], { memberId: "kafka-client-1" });
    expect(joined.memberId).toBe("kafka-client-1");
    expect(joined.assignment).toEqual([{ topic, partitions: [0, 1] }]);
    expect((await heartbeat(group, "kafka-client-1", { memberEpoch: joined.memberEpoch })).memberEpoch).toBe(joined.memberEpoch);
    expect((await describeGroup(group)).members.map(({ memberId }) => memberId)).toEqual(["kafka-client-1"]);
  });

  it("rejoins the member that has the id: still one member, a new epoch", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("chosen-again");
    const first = await join(group, [topic], { memberId: "kafka-client-2" });
    const again = await join(group, [topic], { memberId: "kafka-client-2", assignor: "range" });
    expect(again.memberId).toBe("kafka-client-2");
    expect(again.memberEpoch).toBeGreaterThan(first.memberEpoch);
    const described = await describeGroup(group);
    expect(described.members.map(({ memberId }) => memberId)).toEqual(["kafka-client-2"]);
    expect(described.assignor).toBe("range");
  });

  it("refuses an empty or over-long id with 400 INVALID_REQUEST", async () => {
    const topic = await topicWith(1);
    for (const memberId of ["", "x".repeat(256)]) {
      expectError(await joinRaw(uniqueGroup("chosen-bad"), { topics: [topic], memberId }), 400, "INVALID_REQUEST");
    }
  });
});
