/**
 * Share group administration (issue 15): configs and their validation, list, describe, reset
 * and delete — the last two refused with 409 NON_EMPTY_GROUP while records are acquired.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, produce, uniqueTopic } from "../support/http.ts";
import { acceptAll, describeShareGroup, setConfigs, shareFetch, sharePath, uniqueShareGroup } from "./support.ts";

describe("share group configs", () => {
  it("answers every config with its effective value, and creates the group", async () => {
    const group = uniqueShareGroup("configs");
    const answer = await setConfigs(group, { "delivery.count.limit": "3" });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      group,
      configs: { "record.lock.duration.ms": "30000", "delivery.count.limit": "3", "auto.offset.reset": "latest", "dead.letter.topic": "", "share.isolation.level": "read_committed" },
    });
    expect((await describeShareGroup(group)).configs["delivery.count.limit"]).toBe("3");
    const restored = await setConfigs(group, { "delivery.count.limit": null });
    expect(restored.body.configs["delivery.count.limit"]).toBe("5");
    const listed = await api("GET", "/v1/share-groups");
    expect(listed.body.groups).toContainEqual({ group });
  });

  it.each([
    [{ "record.lock.duration.ms": "999" }],
    [{ "record.lock.duration.ms": "3600001" }],
    [{ "delivery.count.limit": "1" }],
    [{ "delivery.count.limit": "11" }],
    [{ "delivery.count.limit": "three" }],
    [{ "auto.offset.reset": "none" }],
    [{ "dead.letter.topic": "no-such-topic-anywhere" }],
    [{ "dead.letter.topic": "../bad" }],
    [{ "session.timeout.ms": "1000" }],
  ])("refuses %j with INVALID_CONFIG, changing nothing", async (configs) => {
    const group = uniqueShareGroup("bad-config");
    expect((await setConfigs(group, { "delivery.count.limit": "4" })).status).toBe(200);
    expectError(await setConfigs(group, configs), 400, "INVALID_CONFIG");
    expect((await describeShareGroup(group)).configs).toMatchObject({ "delivery.count.limit": "4", "record.lock.duration.ms": "30000", "dead.letter.topic": "" });
  });

  it("answers 404 GROUP_ID_NOT_FOUND for a group that does not exist", async () => {
    const group = uniqueShareGroup("missing");
    expectError(await api("GET", sharePath(group)), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("DELETE", sharePath(group)), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("POST", sharePath(group, "/offsets/reset"), { topic: "t", to: "earliest" }), 404, "GROUP_ID_NOT_FOUND");
  });
});

describe("share group reset and delete", () => {
  it("are refused with 409 NON_EMPTY_GROUP while records are acquired, and work once none is", async () => {
    const topic = uniqueTopic("share-admin");
    await createTopic(topic, { partitions: 1 });
    await produce(topic, Array.from({ length: 5 }, (_, index) => ({ value: `v${index}` })));
    const group = uniqueShareGroup("admin");
    expect((await setConfigs(group, { "auto.offset.reset": "earliest" })).status).toBe(200);
    const held = await shareFetch(group, { topics: [topic], maxRecords: 2 });
    expect(held.records).toHaveLength(2);
    const before = await describeShareGroup(group);

    expectError(await api("POST", sharePath(group, "/offsets/reset"), { topic, to: "latest" }), 409, "NON_EMPTY_GROUP");
    expectError(await api("DELETE", sharePath(group)), 409, "NON_EMPTY_GROUP");
    expect(await describeShareGroup(group)).toEqual(before);

    // A dry run plans without writing, even now.
    const planned = await api("POST", sharePath(group, "/offsets/reset"), { topic, to: { offset: 4 }, dryRun: true });
    expect(planned.body).toEqual({ offsets: [{ topic, partition: 0, offset: 4 }] });

    await acceptAll(group, held);
    const reset = await api("POST", sharePath(group, "/offsets/reset"), { topic, to: { offset: 4 } });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toEqual({ offsets: [{ topic, partition: 0, offset: 4 }] });
    const after = await shareFetch(group, { topics: [topic] });
    expect(after.records.map((record) => record.offset)).toEqual([4]);
    await acceptAll(group, after);

    expect((await api("DELETE", sharePath(group))).status).toBe(204);
    expectError(await api("GET", sharePath(group)), 404, "GROUP_ID_NOT_FOUND");
    expect((await api("GET", "/v1/share-groups")).body.groups).not.toContainEqual({ group });
    // The name is free: a new group starts over (latest by default: nothing old).
    expect((await shareFetch(group, { topics: [topic] })).records).toEqual([]);
    expect((await describeShareGroup(group)).partitions[0]).toMatchObject({ startOffset: 5, endOffset: 5 });
  });
});
