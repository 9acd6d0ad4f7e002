/**
 * Several members draining one topic through polls (API.md, Consumer groups; issue 3): when
 * nothing fails, every record reaches the group exactly once, across rebalances while
 * records are in flight.
 */
import { describe, expect, it } from "vitest";
import { createTopic, produce, uniqueTopic } from "../support/http.ts";
import { describeGroup, groupOffsets, partitionsOf, PollingMember, uniqueGroup, type PolledRecord } from "./support/groups.ts";

const partitions = 6;

async function produceRound(topic: string, round: number, perPartition: number): Promise<string[]> {
  const records = [];
  for (let partition = 0; partition < partitions; partition++) {
    for (let index = 0; index < perPartition; index++) records.push({ value: `r${round}-p${partition}-${index}`, partition });
  }
  const offsets = await produce(topic, records);
  return offsets.map(({ partition, offset }) => `${partition}:${offset}`);
}

const key = (record: PolledRecord) => `${record.partition}:${record.offset}`;

/** Polls every member in turn until the group is stable and a whole round returns nothing. */
async function drain(group: string, members: readonly PollingMember[], maxRecords: number): Promise<void> {
  for (let round = 0; round < 200; round++) {
    let returned = 0;
    for (const member of members) returned += (await member.poll({ maxRecords })).records.length;
    if (returned === 0 && (await describeGroup(group)).state === "Stable") return;
  }
  throw new Error("the group did not drain in 200 rounds");
}

describe.each([2, 3])("%i members draining a 6-partition topic", (memberCount) => {
  it("deliver every record to the group exactly once", async () => {
    const topic = uniqueTopic("drain");
    await createTopic(topic, { partitions });
    const group = uniqueGroup("drain");
    const produced = await produceRound(topic, 0, 8);
    const first = await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" });
    // The first member alone makes progress, then the others join mid-way.
    await first.poll({ maxRecords: 5 });
    await first.poll({ maxRecords: 5 });
    const members = [first];
    for (let index = 1; index < memberCount; index++) {
      members.push(await PollingMember.join(group, [topic], { autoOffsetReset: "earliest" }));
      for (const member of members) await member.poll({ maxRecords: 5 });
    }
    produced.push(...(await produceRound(topic, 1, 4)));
    await drain(group, members, 7);

    const received = members.flatMap((member) => member.received.map(key));
    expect(received.length).toBe(new Set(received).size);
    expect([...received].sort()).toEqual([...produced].sort());
    // Balanced, every partition owned once, and everything committed.
    const owned = members.map((member) => partitionsOf(member.assignment, topic));
    expect(owned.map((list) => list.length).sort()).toEqual(Array(memberCount).fill(partitions / memberCount));
    expect(owned.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const offsets = await groupOffsets(group);
    expect(offsets.map((entry) => entry.lag)).toEqual(Array(partitions).fill(0));
  });
});
