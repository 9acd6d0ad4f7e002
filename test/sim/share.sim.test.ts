/**
 * Seeded simulation of the share-partition state machine (issue 15; src/share/share-partition.ts)
 * as its object runs it: fetches, acknowledgements (late, foreign, lost), lock expiries,
 * consumers that die holding locks, crashes before and after the state's write with restarts
 * from the persisted row, dead-letter writes that fail. After every step: no record held by two
 * leases at once, the in-flight window within its bound, no record past its delivery limit or
 * accepted twice; after a final drain: every record accepted exactly once or archived (and
 * dead-lettered when configured), none lost.
 *
 * Replay one seed, its log printed: SHARE_SIM_SEED=123 npx vitest run --project sim test/sim/share.sim.test.ts
 * More seeds: SHARE_SIM_SEEDS=5000.
 */
import { describe, expect, it } from "vitest";
import { ShareSim, type ShareSimCounts } from "./share-sim-world.ts";

const stepsPerSeed = 300;
const replaySeed = process.env.SHARE_SIM_SEED === undefined ? undefined : Number(process.env.SHARE_SIM_SEED);
const seedCount = Number(process.env.SHARE_SIM_SEEDS ?? 600);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: seedCount }, (_, index) => index + 1);

function runSeed(seed: number): ShareSim {
  const sim = new ShareSim(seed);
  try {
    sim.run(stepsPerSeed);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `share simulation failed at seed ${seed}: ${message}\n` +
        `replay: SHARE_SIM_SEED=${seed} npx vitest run --project sim test/sim/share.sim.test.ts\n` +
        sim.log.slice(-80).join("\n"),
    );
  }
  if (replaySeed !== undefined) console.log(sim.log.join("\n"));
  return sim;
}

describe("share-partition simulation", () => {
  it(`keeps every invariant after every step and settles every record, over ${seeds.length} seeds`, () => {
    const totals: Record<string, number> = {};
    for (const seed of seeds) {
      const sim = runSeed(seed);
      for (const [name, count] of Object.entries(sim.counts)) totals[name] = (totals[name] ?? 0) + count;
    }
    if (replaySeed !== undefined) return;
    // A simulation that never expired a lock, crashed or failed a dead-letter write would prove little.
    const exercised: (keyof ShareSimCounts)[] = [
      "acquired", "accepts", "releases", "rejects", "refused", "expiries", "crashesBeforeWrite", "crashesAfterWrite",
      "deaths", "deadLetterFailures", "deadLettered", "archivedAtLimit", "skipped",
    ];
    for (const name of exercised) expect(totals[name], name).toBeGreaterThan(seeds.length / 10);
  });
});
