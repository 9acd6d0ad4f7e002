/**
 * Seeded simulation of the transaction coordinator (issue 28; src/transactions/) as its object
 * runs it, alone with a model of the partitions' side and the real group offsets rules: two
 * instances of one transactional id fencing each other, requests lost, duplicated, delayed and
 * reordered, the coordinator crashing at every step (before a persist, mid marker round) and
 * evicted, markers failing or landing unacknowledged, transactions left to time out, epochs
 * overflowing into a new producer id. After every step: every marker anywhere carries out a
 * durable decision, exactly; no write or offset commit lands in another transaction than its
 * own; no fenced instance is accepted. After settling: no transaction open or ending, every
 * decision's marker on every partition and group, no hanging transaction, a transaction's
 * offsets committed exactly when it committed.
 *
 * Each property is shown to catch a bug: the "injected bugs" block runs the coordinator with
 * one duty done wrong and expects a failure within its seeds.
 *
 * Replay one seed, its log printed: TXN_SIM_SEED=123 npx vitest run --project sim test/sim/transaction-coordinator.sim.test.ts
 * More seeds: TXN_SIM_SEEDS=5000.
 */
import { describe, expect, it } from "vitest";
import type { TxnSimBug } from "./transaction-sim-coordinator.ts";
import { TxnSim, type TxnSimCounts } from "./transaction-sim-world.ts";

const stepsPerSeed = 400;
const replaySeed = process.env.TXN_SIM_SEED === undefined ? undefined : Number(process.env.TXN_SIM_SEED);
const seedCount = Number(process.env.TXN_SIM_SEEDS ?? 1000);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: seedCount }, (_, index) => index + 1);

function runSeed(seed: number): TxnSim {
  const sim = new TxnSim(seed);
  try {
    sim.run(stepsPerSeed);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `transaction coordinator simulation failed at seed ${seed}: ${message}\n` +
        `replay: TXN_SIM_SEED=${seed} npx vitest run --project sim test/sim/transaction-coordinator.sim.test.ts\n` +
        sim.log.slice(-60).join("\n"),
    );
  }
  if (replaySeed !== undefined) console.log(sim.log.join("\n"));
  return sim;
}

/** The first failure a buggy coordinator meets within `limit` seeds, or null. */
function failureWith(bug: TxnSimBug, limit: number): string | null {
  for (let seed = 1; seed <= limit; seed++) {
    try {
      new TxnSim(seed, bug).run(stepsPerSeed);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return null;
}

describe("transaction coordinator simulation", () => {
  it(`keeps every property after every step and settles every transaction, over ${seeds.length} seeds`, () => {
    const totals: Record<string, number> = {};
    for (const seed of seeds) {
      const sim = runSeed(seed);
      const counts: Record<string, number> = { ...sim.counts, ...sim.coordinator.counts };
      for (const [name, count] of Object.entries(counts)) totals[name] = (totals[name] ?? 0) + count;
    }
    if (replaySeed !== undefined) return;
    // A simulation that never crashed, timed out, fenced or refused a late write would prove little.
    const exercised: (keyof TxnSimCounts | "restarts" | "timeouts" | "incompleteRounds" | "decisions")[] = [
      "writesAccepted", "writesRefused", "offsetCommitsRefused", "fencedAnswers", "crashes", "evictions", "duplicates", "lost",
      "commits", "aborts", "markersFailed", "producerIdsAllocated", "restarts", "timeouts", "incompleteRounds", "decisions",
    ];
    for (const name of exercised) expect(totals[name], name).toBeGreaterThan(seeds.length / 10);
  });

  describe("injected bugs are caught", () => {
    const bugs: { bug: TxnSimBug; caughtBy: RegExp }[] = [
      { bug: "no-epoch-bump", caughtBy: /late write|late offset commit|hanging transaction|pending offsets/ },
      { bug: "markers-before-decision", caughtBy: /marker without a durable decision|marker unlike its decision/ },
      { bug: "no-fencing", caughtBy: /fencing/ },
      { bug: "complete-early", caughtBy: /never got transaction|hanging transaction|pending offsets|late write|late offset commit/ },
      { bug: "no-timeout", caughtBy: /never ended/ },
      { bug: "implicit-add-old-epoch", caughtBy: /late write|fencing/ },
    ];
    for (const { bug, caughtBy } of bugs) {
      it(bug, () => {
        const failure = failureWith(bug, 200);
        expect(failure).toMatch(caughtBy);
      });
    }
  });
});
