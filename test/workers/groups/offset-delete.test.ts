/**
 * `POST /v1/groups/{g}/offsets/delete` (docs/api.md, Consumer groups): Kafka's OffsetDelete —
 * an empty group's offsets of the named partitions go; a topic the members subscribe to is
 * refused per partition with nothing deleted of it; an unknown group is 404; authorization is
 * Kafka's (delete on the group, read on the topics).
 */
import { describe, expect, it } from "vitest";
import { api, expectError } from "../support/http.ts";
import { createToken, securedCall } from "../support/secured.ts";
import { commitRaw, groupOffsets, groupPath, join, leave, topicWith, uniqueGroup } from "./support/groups.ts";

function deleteOffsetsRaw(group: string, partitions: unknown) {
  return api("POST", groupPath(group, "/offsets/delete"), { partitions });
}

async function commit(group: string, offsets: { topic: string; partition: number; offset: number }[]): Promise<void> {
  const response = await commitRaw(group, { offsets });
  expect(response.status, response.text).toBe(204);
}

const committed = (entries: { topic: string; partition: number; offset: number | null }[]) => entries.map(({ topic, partition, offset }) => ({ topic, partition, offset }));

describe("offsets delete", () => {
  it("deletes an empty group's committed offsets of the named partitions, answering each in request order, and keeps the others", async () => {
    const [orders, payments] = [await topicWith(2, "od-orders"), await topicWith(1, "od-payments")];
    const group = uniqueGroup("od-empty");
    await commit(group, [
      { topic: orders, partition: 0, offset: 3 },
      { topic: orders, partition: 1, offset: 4 },
      { topic: payments, partition: 0, offset: 5 },
    ]);
    const response = await deleteOffsetsRaw(group, [
      { topic: payments, partition: 0 },
      { topic: orders, partition: 0 },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      partitions: [
        { topic: payments, partition: 0, error: null },
        { topic: orders, partition: 0, error: null },
      ],
    });
    // An empty group lists the topics with commits: payments has none left.
    expect(committed(await groupOffsets(group))).toEqual([
      { topic: orders, partition: 0, offset: null },
      { topic: orders, partition: 1, offset: 4 },
    ]);
    // A partition with nothing committed is answered as deleted too (Kafka's answer).
    const again = await deleteOffsetsRaw(group, [{ topic: orders, partition: 0 }]);
    expect(again.body).toEqual({ partitions: [{ topic: orders, partition: 0, error: null }] });
  });

  it("refuses each partition of a topic the members subscribe to with GROUP_SUBSCRIBED_TO_TOPIC and deletes nothing of it; other topics' go", async () => {
    const [subscribed, other] = [await topicWith(1, "od-subscribed"), await topicWith(1, "od-other")];
    const group = uniqueGroup("od-active");
    await commit(group, [
      { topic: subscribed, partition: 0, offset: 2 },
      { topic: other, partition: 0, offset: 6 },
    ]);
    const member = await join(group, [subscribed]);
    const response = await deleteOffsetsRaw(group, [
      { topic: subscribed, partition: 0 },
      { topic: other, partition: 0 },
    ]);
    expect(response.status, response.text).toBe(200);
    const [refused, deleted] = response.body.partitions;
    expect(refused).toMatchObject({ topic: subscribed, partition: 0, error: { code: "GROUP_SUBSCRIBED_TO_TOPIC" } });
    expect(deleted).toEqual({ topic: other, partition: 0, error: null });
    expect(committed(await groupOffsets(group))).toEqual([{ topic: subscribed, partition: 0, offset: 2 }]);
    // Once the member left, the group subscribes to nothing: the offset can go.
    await leave(group, member.memberId);
    expect((await deleteOffsetsRaw(group, [{ topic: subscribed, partition: 0 }])).body.partitions[0].error).toBeNull();
    expect(committed(await groupOffsets(group))).toEqual([]);
  });

  it("answers a topic that does not exist or a partition it lacks with UNKNOWN_TOPIC_OR_PARTITION, per partition", async () => {
    const topic = await topicWith(1, "od-unknown");
    const group = uniqueGroup("od-unknown");
    await commit(group, [{ topic, partition: 0, offset: 1 }]);
    const response = await deleteOffsetsRaw(group, [
      { topic: `${topic}-missing`, partition: 0 },
      { topic, partition: 1 },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body.partitions.map((entry: { error: { code: string } }) => entry.error.code)).toEqual(["UNKNOWN_TOPIC_OR_PARTITION", "UNKNOWN_TOPIC_OR_PARTITION"]);
    expect(committed(await groupOffsets(group))).toEqual([{ topic, partition: 0, offset: 1 }]);
  });

  it("is 404 GROUP_ID_NOT_FOUND for a group that does not exist, and creates none", async () => {
    const topic = await topicWith(1, "od-nogroup");
    const group = uniqueGroup("od-nogroup");
    expectError(await deleteOffsetsRaw(group, [{ topic, partition: 0 }]), 404, "GROUP_ID_NOT_FOUND");
    expectError(await api("GET", groupPath(group)), 404, "GROUP_ID_NOT_FOUND");
  });

  it("refuses no partitions, or one named twice, with 400 INVALID_REQUEST", async () => {
    const topic = await topicWith(1, "od-invalid");
    const group = uniqueGroup("od-invalid");
    await commit(group, [{ topic, partition: 0, offset: 1 }]);
    expectError(await deleteOffsetsRaw(group, []), 400, "INVALID_REQUEST");
    expectError(await deleteOffsetsRaw(group, [{ topic, partition: 0 }, { topic, partition: 0 }]), 400, "INVALID_REQUEST");
    expect(committed(await groupOffsets(group))).toEqual([{ topic, partition: 0, offset: 1 }]);
  });

  it("needs delete on the group and read on every topic named (Kafka's), and refuses with nothing deleted", async () => {
    const topic = await topicWith(1, "od-auth");
    const group = uniqueGroup("od-auth");
    await commit(group, [{ topic, partition: 0, offset: 8 }]);
    const body = { partitions: [{ topic, partition: 0 }] };
    const path = groupPath(group, "/offsets/delete");
    const topicRead = { resource: "topic", name: topic, patternType: "literal", operations: ["read"] };
    const groupRead = { resource: "group", name: group, patternType: "literal", operations: ["read"] };
    const groupDelete = { resource: "group", name: group, patternType: "literal", operations: ["delete"] };
    const readOnly = await createToken({ rules: [topicRead, groupRead] });
    expectError(await securedCall("POST", path, { token: readOnly.token, body }), 403, "GROUP_AUTHORIZATION_FAILED");
    const noTopic = await createToken({ rules: [groupDelete, { ...topicRead, operations: ["describe"] }] });
    expectError(await securedCall("POST", path, { token: noTopic.token, body }), 403, "TOPIC_AUTHORIZATION_FAILED");
    expect(committed(await groupOffsets(group))).toEqual([{ topic, partition: 0, offset: 8 }]);
    const rightful = await createToken({ rules: [groupDelete, topicRead] });
    const allowed = await securedCall("POST", path, { token: rightful.token, body });
    expect(allowed.status, allowed.text).toBe(200);
    expect(committed(await groupOffsets(group))).toEqual([]);
  });
});
