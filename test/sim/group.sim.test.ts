/**
 * Seeded simulation of the consumer group core (issue 3). Each seed builds a world of
 * consumers that join, heartbeat, lose answers, leave, crash, pause past their session and
 * return, change subscriptions, while topics grow, the coordinator restarts from its row and a
 * fake clock fires the alarm; every call
 * is followed by the invariant checks in group-sim-checks.ts, and settling phases check the
 * final layout.
 *
 * A failure names its seed and prints the run's log. Replay one seed, log printed:
 *   GROUP_SIM_SEED=123 npx vitest run --project sim test/sim/group.sim.test.ts
 * More seeds: GROUP_SIM_SEEDS=5000.
 */

import { describe, expect, it } from "vitest";
import { GroupSim } from "./group-sim-world.ts";
import type { SimCounts } from "./group-sim-world.ts";

const stepsPerSeed = 200;
const replaySeed = process.env.GROUP_SIM_SEED === undefined ? undefined : Number(process.env.GROUP_SIM_SEED);
const seedCount = Number(process.env.GROUP_SIM_SEEDS ?? 500);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: seedCount }, (_, index) => index + 1);

function runSeed(seed: number): GroupSim {
  const sim = new GroupSim(seed);
  try {
    sim.run(stepsPerSeed);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `group simulation failed at seed ${seed}: ${message}\n` +
        `replay: GROUP_SIM_SEED=${seed} npx vitest run --project sim test/sim/group.sim.test.ts\n` +
        sim.log.join("\n"),
    );
  }
  if (replaySeed !== undefined) console.log(sim.log.join("\n"));
  return sim;
}

describe("consumer group simulation", () => {
  it(`keeps every invariant after every call, over ${seeds.length} seeds`, () => {
    const totals: Record<string, number> = {};
    for (const seed of seeds) {
      const sim = runSeed(seed);
      for (const [name, count] of Object.entries(sim.counts)) totals[name] = (totals[name] ?? 0) + count;
    }
    if (replaySeed !== undefined) return;
    // A simulation that never lost an answer or expired a member would prove little.
    const faults: (keyof SimCounts)[] = ["joins", "lostResponses", "fenced", "unknownMember", "expired", "leaves", "grown", "settles", "staleMetadata", "restarts", "commits", "commitsFenced"];
    for (const name of faults) {
      expect(totals[name], name).toBeGreaterThan(seeds.length / 10);
    }
  });

  it("is a pure function of its seed", () => {
    expect(runSeed(7).log).toEqual(runSeed(7).log);
  });
});
