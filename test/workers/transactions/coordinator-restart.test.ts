/**
 * A coordinator evicted between its durable decision and the markers (issue 28): the decision
 * is persisted as the end's turn persists it, the object is evicted before any marker leaves,
 * and the alarm of the fresh instance writes the markers — the transaction completes, its
 * offsets become the group's, and the new incarnation's coordinator epoch is higher.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { end } from "../../../src/transactions/transaction-machine.ts";
import type { TransactionMetadata } from "../../../src/transactions/transaction-metadata.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { uniqueGroup } from "../groups/support/groups.ts";
import { committedOffset, coordinatorOf, describeTransaction, initTransactions, sendOffsets, uniqueTransactionalId } from "./support.ts";

describe("a coordinator evicted between the decision and the markers", () => {
  it("completes the transaction from its alarm after the restart", async () => {
    const id = uniqueTransactionalId("evicted");
    const topic = uniqueTopic("evicted");
    const group = uniqueGroup("evicted");
    await createTopic(topic);
    const identity = await initTransactions(id);
    expect((await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 5 }])).status).toBe(200);
    const before = await describeTransaction(id);

    // The end's turn up to its durable decision (PrepareCommit with the alarm set), then nothing more.
    await runInDurableObject(coordinatorOf(id), async (_instance, state) => {
      const row = state.storage.sql.exec<{ metadata: string }>("SELECT metadata FROM transaction_state WHERE id = 1").one();
      const decided = end(JSON.parse(row.metadata) as TransactionMetadata, identity, "commit", Date.now());
      if (decided.kind !== "done") throw new Error(decided.kind);
      state.storage.sql.exec("UPDATE transaction_state SET metadata = ? WHERE id = 1", JSON.stringify(decided.metadata));
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    await evictDurableObject(coordinatorOf(id));

    const restarted = await describeTransaction(id);
    expect(restarted).toMatchObject({ state: "PrepareCommit", producerEpoch: identity.producerEpoch + 1, pendingMarkers: { groups: [group], result: "commit" } });
    expect(restarted.coordinatorEpoch).toBeGreaterThan(before.coordinatorEpoch);
    expect(await committedOffset(group, topic, 0)).toBeNull();

    expect(await runDurableObjectAlarm(coordinatorOf(id))).toBe(true);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null });
    expect(await committedOffset(group, topic, 0)).toBe(5);
  });
});
