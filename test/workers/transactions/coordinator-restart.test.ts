/**
 * A coordinator evicted between its durable decision and the markers (issue 28): the decision
 * is persisted as the end's turn persists it, the object is evicted before any marker leaves,
 * and the alarm of the fresh instance writes the markers — the transaction completes, its
 * offsets become the group's, and the new incarnation's coordinator epoch is higher.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { uniqueGroup } from "../groups/support/groups.ts";
import { committedOffset, coordinatorOf, decideWithoutMarkers, describeTransaction, initTransactions, sendOffsets, uniqueTransactionalId } from "./support.ts";

describe("a coordinator evicted between the decision and the markers", () => {
  it("completes the transaction from its alarm after the restart", async () => {
    const id = uniqueTransactionalId("evicted");
    const topic = uniqueTopic("evicted");
    const group = uniqueGroup("evicted");
    await createTopic(topic);
    const identity = await initTransactions(id);
    expect((await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 5 }])).status).toBe(200);
    const before = await describeTransaction(id);

    await decideWithoutMarkers(id, identity, "commit");
    await evictDurableObject(await coordinatorOf(id));

    const restarted = await describeTransaction(id);
    expect(restarted).toMatchObject({ state: "PrepareCommit", producerEpoch: identity.producerEpoch + 1, pendingMarkers: { groups: [group], result: "commit" } });
    expect(restarted.coordinatorEpoch).toBeGreaterThan(before.coordinatorEpoch);
    expect(await committedOffset(group, topic, 0)).toBeNull();

    expect(await runDurableObjectAlarm(await coordinatorOf(id))).toBe(true);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null });
    expect(await committedOffset(group, topic, 0)).toBe(5);
  });
});
