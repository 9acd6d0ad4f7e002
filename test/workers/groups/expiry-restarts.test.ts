/**
 * A member that stops is removed within its session timeout plus a quarter session
 * (src/limits.ts, memberContactPersistDivisor) however often the coordinator object restarts
 * in between — on Cloudflare idle objects are evicted routinely, and the expiry alarm itself
 * wakes a fresh instance (issue 12: a restart used to count every member as heard from at load
 * time, so a member with a session longer than an object's idle life was never removed). And a
 * member that keeps heartbeating is never removed early by the restarts.
 *
 * The shortest session (6 s) with the object restarted every 300 ms reproduces it: before the
 * fix the silent member's session started over at every restart.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memberContactPersistDivisor } from "../../../src/limits.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { coordinator, describeGroup, heartbeat, join, sleep, uniqueGroup } from "./support/groups.ts";

const sessionTimeoutMs = 6_000;
const slackMs = sessionTimeoutMs / memberContactPersistDivisor;
const restartEveryMs = 300;

describe("a coordinator restarted again and again during a member's session", () => {
  it("still removes the member that stopped, within its session plus the slack, and keeps the one that heartbeats", async () => {
    const topic = uniqueTopic("restarts");
    await createTopic(topic, { partitions: 2 });
    const group = uniqueGroup("restarts");
    const silent = await join(group, [topic], { sessionTimeoutMs });
    const silentJoinedAt = Date.now();
    let alive = await join(group, [topic], { sessionTimeoutMs });

    // Restart the object (and wake a fresh instance) until the silent member's deadline plus
    // the slack has surely passed; the live member heartbeats as its client would.
    const removableAt = silentJoinedAt + sessionTimeoutMs + slackMs + 300;
    let nextHeartbeatAt = Date.now() + alive.heartbeatIntervalMs;
    let restarts = 0;
    while (Date.now() < removableAt) {
      await evictDurableObject(coordinator(group));
      restarts += 1;
      const described = await describeGroup(group);
      expect(described.members.map((member) => member.memberId)).toContain(alive.memberId);
      if (Date.now() >= nextHeartbeatAt) {
        const answer = await heartbeat(group, alive.memberId, { memberEpoch: alive.memberEpoch });
        alive = { ...alive, ...answer };
        nextHeartbeatAt = Date.now() + alive.heartbeatIntervalMs;
      }
      await sleep(restartEveryMs);
    }
    expect(restarts).toBeGreaterThan(10);

    await evictDurableObject(coordinator(group));
    await runDurableObjectAlarm(coordinator(group)); // unless it already ran on its own
    const described = await describeGroup(group);
    expect(described.members.map((member) => member.memberId)).toEqual([alive.memberId]);
    expect(described.members.map((member) => member.memberId)).not.toContain(silent.memberId);
  });
});
