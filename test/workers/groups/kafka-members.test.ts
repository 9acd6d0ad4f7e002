/**
 * What the Kafka gateway's KIP-848 members use over HTTP (API.md, Consumer groups): join under
 * the member id the member chose (Kafka's KIP-1082) — a new member under it, a rejoin of the
 * member that has it, the ids refused — and static members (join's `groupInstanceId`, leave
 * with `?static=true`): back under its instance id, a member takes its place.
 */
import { describe, expect, it } from "vitest";
import { api, expectError } from "../support/http.ts";
import { describeGroup, groupPath, heartbeat, join, joinRaw, topicWith, uniqueGroup } from "./support/groups.ts";

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

describe("static members", () => {
  it("a static member that leaves for now keeps its partitions; back under its instance id it takes its place at the same epoch", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("static");
    const first = await join(group, [topic], { memberId: "s1", groupInstanceId: "instance-1" });
    expectError(await joinRaw(group, { topics: [topic], memberId: "s2", groupInstanceId: "instance-1" }), 409, "UNRELEASED_INSTANCE_ID");
    const left = await api("DELETE", groupPath(group, "/members/s1?static=true"));
    expect(left.status, left.text).toBe(204);
    expect((await describeGroup(group)).members).toMatchObject([{ memberId: "s1", groupInstanceId: "instance-1", assignment: first.assignment }]);
    const back = await join(group, [topic], { memberId: "s2", groupInstanceId: "instance-1" });
    expect(back).toEqual({ memberId: "s2", memberEpoch: first.memberEpoch, assignment: first.assignment, heartbeatIntervalMs: 5000 });
    expect((await describeGroup(group)).members.map(({ memberId }) => memberId)).toEqual(["s2"]);
  });

  it("refuses static=maybe with 400 INVALID_REQUEST", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("static-bad");
    await join(group, [topic], { memberId: "s1", groupInstanceId: "i" });
    expectError(await api("DELETE", groupPath(group, "/members/s1?static=maybe")), 400, "INVALID_REQUEST");
  });
});
