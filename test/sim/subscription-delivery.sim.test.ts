/**
 * Ordered push delivery of one partition (src/subscriptions/delivery-plan.ts) under seeded
 * schedules: a log with gaps (compaction, control records), random batch sizes, targets that
 * fail, accept, release or reject single records, and restarts of the subscription's object
 * that lose what it had not written (a fresh batch before its first delivery; positions of
 * accepted batches since the last commit — the object's auto-commit). Every record ends
 * accepted or dead-lettered, none is skipped, the position never goes back, a record is never
 * delivered more than `deliveryLimit` times in one run of the object, and a retry carries only
 * offsets of the batch before it. Replay one with SUBSCRIPTION_SIM_SEED=n.
 */
import { describe, expect, it } from "vitest";
import type { AckType } from "../../src/subscriptions/delivery-answer.ts";
import { recordKey } from "../../src/subscriptions/delivery-answer.ts";
import { isDue, settle, startBatch, type DeliveryOutcome, type PartitionCursor } from "../../src/subscriptions/delivery-plan.ts";
import { SeededRandom } from "./group-sim-random.ts";

const seeds = process.env.SUBSCRIPTION_SIM_SEED ? [Number(process.env.SUBSCRIPTION_SIM_SEED)] : Array.from({ length: 400 }, (_, index) => index + 1);

function simulate(seed: number): void {
  const random = new SeededRandom(seed);
  const log: number[] = [];
  for (let offset = 0; log.length < random.int(20, 200); offset++) if (!random.chance(0.1)) log.push(offset); // gaps
  const logEnd = log.at(-1)! + 1 + random.int(0, 3); // control records after the last one
  const settings = { deliveryLimit: random.int(2, 10), retryDelayMs: random.int(0, 1_000) };
  let now = 0;
  let stored: PartitionCursor = { partition: 0, position: 0, inFlight: null };
  let cursor = stored;
  const settled = new Map<number, "accepted" | "dead-letter">();
  const deliveries = new Map<number, number>();
  for (let step = 0; step < 10_000 && cursor.position < logEnd; step++) {
    now += random.int(0, 2_000);
    if (random.chance(0.05)) {
      cursor = stored; // a restart: what was not written is lost
      deliveries.clear();
      continue;
    }
    if (cursor.inFlight === null) {
      const batchSize = random.int(1, 50);
      const offsets = log.filter((offset) => offset >= cursor.position).slice(0, batchSize);
      const next = log.find((offset) => offset > (offsets.at(-1) ?? Infinity));
      cursor = startBatch(cursor, offsets, offsets.length === 0 ? logEnd : (next ?? logEnd));
      if (cursor.inFlight === null) continue;
    }
    if (!isDue(cursor, now)) continue;
    const batch = cursor.inFlight!;
    for (const offset of batch.offsets) {
      deliveries.set(offset, (deliveries.get(offset) ?? 0) + 1);
      expect(deliveries.get(offset), `seed ${seed}: offset ${offset} delivered past the limit`).toBeLessThanOrEqual(settings.deliveryLimit);
    }
    const kind = random.weighted({ fail: 3, accept: 3, acks: 2 });
    let outcome: DeliveryOutcome;
    if (kind === "fail") outcome = { kind: "failed", error: "HTTP 503" };
    else if (kind === "accept") outcome = { kind: "answered", acks: new Map() };
    else outcome = { kind: "answered", acks: new Map(batch.offsets.map((offset) => [recordKey(0, offset), random.pick<AckType>(["accept", "release", "reject"])])) };
    const settlement = settle(cursor, outcome, settings, now);
    expect(settlement.cursor.position, `seed ${seed}: the position went back`).toBeGreaterThanOrEqual(cursor.position);
    const retried = settlement.cursor.inFlight?.offsets ?? [];
    expect(retried.every((offset) => batch.offsets.includes(offset)), `seed ${seed}: a retry carries other offsets`).toBe(true);
    for (const offset of batch.offsets) {
      if (retried.includes(offset)) continue;
      const dead = settlement.deadLetters.some((letters) => letters.offsets.includes(offset));
      if (!settled.has(offset)) settled.set(offset, dead ? "dead-letter" : "accepted");
    }
    cursor = settlement.cursor;
    // The object's commits: at once for a retry or dead letters, else now and then.
    if (cursor.inFlight !== null || settlement.deadLetters.length > 0 || random.chance(0.3)) stored = cursor;
  }
  expect(cursor.position, `seed ${seed}: did not finish`).toBe(logEnd);
  expect([...settled.keys()].sort((a, b) => a - b), `seed ${seed}: a record was skipped`).toEqual(log);
}

describe("ordered push delivery under seeded schedules", () => {
  it(`settles every record, skips none and never passes the delivery limit (${seeds.length} seeds)`, () => {
    for (const seed of seeds) simulate(seed);
  });
});
