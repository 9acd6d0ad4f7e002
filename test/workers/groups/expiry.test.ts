/**
 * Members that stop (API.md, Consumer groups): a member silent for its session timeout is
 * removed by the coordinator's alarm and its partitions reassigned; what it received but
 * never committed reaches the group again (at least once). These tests wait out the
 * shortest session (6 s), so they run concurrently.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createTopic, produce, uniqueTopic } from "../support/http.ts";
import { coordinator, describeGroup, join, partitionsOf, PollingMember, sleep, uniqueGroup, type PolledRecord } from "./support/groups.ts";

const sessionTimeoutMs = 6_000;
/** Past the session by enough that the member's deadline has surely passed. */
const pastSessionMs = sessionTimeoutMs + 300;

const key = (record: PolledRecord) => `${record.partition}:${record.offset}`;

describe.concurrent("a member that stops", () => {
  it("is removed by the alarm after its session timeout, and its partitions go to the others", async () => {
    const topic = uniqueTopic("expiry");
    await createTopic(topic, { partitions: 2 });
    const group = uniqueGroup("expiry");
    const silent = await join(group, [topic], { sessionTimeoutMs });
    const joinedAt = Date.now();
    const alive = await join(group, [topic]);
    // The alarm is armed for the earliest deadline: the silent member's.
    const armed = await runInDurableObject(coordinator(group), (_instance, state) => state.storage.getAlarm());
    expect(armed).not.toBeNull();
    expect(armed!).toBeGreaterThanOrEqual(joinedAt + sessionTimeoutMs - 1_000);
    expect(armed!).toBeLessThanOrEqual(Date.now() + sessionTimeoutMs);
    // An alarm before the deadline removes nobody, and re-arms.
    expect(await runDurableObjectAlarm(coordinator(group))).toBe(true);
    expect((await describeGroup(group)).members).toHaveLength(2);
    expect(await runInDurableObject(coordinator(group), (_instance, state) => state.storage.getAlarm())).not.toBeNull();

    await sleep(joinedAt + pastSessionMs - Date.now());
    await runDurableObjectAlarm(coordinator(group)); // unless it already ran on its own
    const described = await describeGroup(group);
    expect(described.members.map((member) => member.memberId)).toEqual([alive.memberId]);
    const heartbeat = await api("POST", `/v1/groups/${group}/members/${silent.memberId}/heartbeat`, { memberEpoch: silent.memberEpoch });
    expect(heartbeat.status).toBe(404);
    const listed = await api("GET", "/v1/groups");
    // Reconciling until the member left heartbeats and takes the freed partitions.
    expect(listed.body.groups).toContainEqual({ group, state: "Reconciling", members: 1 });
    const taken = await api("POST", `/v1/groups/${group}/members/${alive.memberId}/heartbeat`, { memberEpoch: alive.memberEpoch });
    expect(partitionsOf(taken.body.assignment, topic)).toEqual([0, 1]);
    expect((await describeGroup(group)).state).toBe("Stable");
  });

  it("has what it received but never committed redelivered to the others (at least once)", async () => {
    const topic = uniqueTopic("at-least-once");
    await createTopic(topic, { partitions: 6 });
    const group = uniqueGroup("at-least-once");
    const produced = (await produce(topic, Array.from({ length: 30 }, (_, index) => ({ value: `a${index}`, partition: index % 6 })))).map(
      ({ partition, offset }) => `${partition}:${offset}`,
    );
    const crashing = await PollingMember.join(group, [topic], { sessionTimeoutMs, autoOffsetReset: "earliest" });
    const steady = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    const first = await crashing.poll(); // gives up half its partitions, reads the other half
    expect(partitionsOf(first.assignment, topic)).toHaveLength(3);
    expect(first.records).toHaveLength(15);
    await crashing.poll(); // commits those 15 records; lets go of the others
    produced.push(
      ...(await produce(topic, Array.from({ length: 12 }, (_, index) => ({ value: `b${index}`, partition: index % 6 })))).map(
        ({ partition, offset }) => `${partition}:${offset}`,
      ),
    );
    const last = await crashing.poll(); // 6 records it never commits: it stops here
    const stoppedAt = Date.now();
    expect(last.records).toHaveLength(6);
    for (let round = 0; round < 3; round++) await steady.poll();
    expect(partitionsOf(steady.assignment, topic)).toHaveLength(3);
    expect(steady.received).toHaveLength(21);

    await sleep(stoppedAt + pastSessionMs - Date.now());
    await runDurableObjectAlarm(coordinator(group));
    expect((await describeGroup(group)).members.map((member) => member.memberId)).toEqual([steady.memberId]);
    for (let round = 0; round < 5; round++) await steady.poll();
    expect(partitionsOf(steady.assignment, topic)).toEqual([0, 1, 2, 3, 4, 5]);

    const all = [...crashing.received, ...steady.received].map(key);
    expect([...new Set(all)].sort()).toEqual([...produced].sort());
    // Exactly the uncommitted records came twice.
    const twice = all.filter((entry, index) => all.indexOf(entry) !== index).sort();
    expect(twice).toEqual(last.records.map(key).sort());
  });
});
