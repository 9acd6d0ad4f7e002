/**
 * What `GET /v1/groups/{group}` shows of each member (docs/api.md; issue 12, item 11): its
 * client id (from the join), its host (the client's address as the router saw the join),
 * its last heartbeat and its session timeout — fields added to API.md's shape.
 */
import { describe, expect, it } from "vitest";
import { api, expectError } from "../support/http.ts";
import { clientIdLengthMax } from "../../../src/limits.ts";
import { describeGroup, groupPath, heartbeat, join, joinRaw, topicWith, uniqueGroup } from "./support/groups.ts";

describe("describe a group's members", () => {
  it("shows each member's client id, host, last heartbeat and session timeout", async () => {
    const topic = await topicWith(2);
    const group = uniqueGroup("describe");
    const before = Date.now();
    const joinResponse = await api("POST", groupPath(group, "/members"), { topics: [topic], clientId: "billing-1", sessionTimeoutMs: 10_000 }, { "CF-Connecting-IP": "203.0.113.9" });
    expect(joinResponse.status, joinResponse.text).toBe(201);
    const plain = await join(group, [topic]);
    const described = await describeGroup(group);
    const first = described.members.find((member) => member.memberId === joinResponse.body.memberId)!;
    expect(first).toMatchObject({ clientId: "billing-1", host: "203.0.113.9", sessionTimeoutMs: 10_000 });
    expect(first.lastHeartbeatAt).toBeGreaterThanOrEqual(before);
    expect(first.lastHeartbeatAt).toBeLessThanOrEqual(Date.now());
    // Without a client id or a CF-Connecting-IP (local development): null, and Kafka's default session.
    expect(described.members.find((member) => member.memberId === plain.memberId)).toMatchObject({ clientId: null, host: null, sessionTimeoutMs: 45_000 });

    const heardAt = Date.now();
    await heartbeat(group, plain.memberId, { memberEpoch: plain.memberEpoch });
    const later = (await describeGroup(group)).members.find((member) => member.memberId === plain.memberId)!;
    expect(later.lastHeartbeatAt).toBeGreaterThanOrEqual(heardAt);
  });

  it("refuses a client id longer than the bound: 400 INVALID_REQUEST, no member added", async () => {
    const topic = await topicWith(1);
    const group = uniqueGroup("client-id");
    expectError(await joinRaw(group, { topics: [topic], clientId: "c".repeat(clientIdLengthMax + 1) }), 400, "INVALID_REQUEST");
    expectError(await joinRaw(group, { topics: [topic], clientId: 7 }), 400, "INVALID_REQUEST");
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
    await join(group, [topic], { clientId: "c".repeat(clientIdLengthMax) });
  });
});
