/**
 * A coordinator evicted between its durable decision and the markers (issue 28): the decision
 * is persisted as the end's turn persists it, the object is evicted before any marker leaves,
 * and the alarm of the fresh instance writes the markers — the transaction completes, its
 * offsets become the group's, and the new incarnation's coordinator epoch is higher. And one
 * evicted after its end answered, before the completion was written (the end does not wait for
 * that write): the markers are written again as duplicates and the transaction completes.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createTopic, highWatermarks, readAll, uniqueTopic } from "../support/http.ts";
import { uniqueGroup } from "../groups/support/groups.ts";
import { begin, committedOffset, coordinatorOf, decideWithoutMarkers, describeTransaction, finish, initTransactions, send, sendOffsets, uniqueTransactionalId } from "./support.ts";

/** The coordinator's row as written (its in-memory state may be newer), and its alarm. */
async function storedState(transactionalId: string): Promise<{ state: string; alarm: number | null }> {
  return runInDurableObject(await coordinatorOf(transactionalId), async (_instance, state) => {
    const row = state.storage.sql.exec<{ metadata: string }>("SELECT metadata FROM transaction_state WHERE id = 1").one();
    return { state: (JSON.parse(row.metadata) as { state: string }).state, alarm: await state.storage.getAlarm() };
  });
}

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

  it("answers the end before writing the completion: the alarm writes it, and a restart before then writes the markers again", async () => {
    const topic = uniqueTopic("completion");
    await createTopic(topic);
    for (const evicted of [false, true]) {
      const producer = await begin(topic, uniqueTransactionalId("completion"));
      await send(topic, producer, [`record-${evicted}`]);
      await finish(producer, true);
      // Answered with every marker written: read_committed sees the record; the row still holds the decision, the alarm armed.
      expect((await readAll(topic, 0)).map((record) => record.value)).toContain(`record-${evicted}`);
      expect(await storedState(producer.transactionalId)).toMatchObject({ state: "PrepareCommit", alarm: expect.any(Number) });
      expect(await describeTransaction(producer.transactionalId)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null });
      const logEnd = (await highWatermarks(topic))[0];
      if (evicted) {
        await evictDurableObject(await coordinatorOf(producer.transactionalId));
        expect(await describeTransaction(producer.transactionalId)).toMatchObject({ state: "PrepareCommit", pendingMarkers: { result: "commit" } });
      }
      expect(await runDurableObjectAlarm(await coordinatorOf(producer.transactionalId))).toBe(true);
      expect(await storedState(producer.transactionalId)).toEqual({ state: "CompleteCommit", alarm: null });
      expect(await describeTransaction(producer.transactionalId)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null });
      expect((await highWatermarks(topic))[0], "the marker written again is a duplicate").toBe(logEnd);
    }
  });
});
