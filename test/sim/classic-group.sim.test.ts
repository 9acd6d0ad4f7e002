/**
 * Seeded simulation of Kafka's classic group protocol in the group core (issue 35;
 * src/group/classic-group.ts): clients that join, wait on held requests, lose answers, rejoin
 * with new user data, leave, crash, restart as static members and start as duplicates, while
 * the coordinator restarts and time jumps; every step is followed by the checks in
 * classic-group-sim-world.ts (the leader sees each member's metadata as sent, each member gets
 * exactly the leader's bytes, one leader, one member per instance id, no partition held twice
 * in a stable generation), and a settling phase checks that every partition ends up held once.
 *
 * A failure names its seed and prints the run's log. Replay one seed, log printed:
 *   CLASSIC_SIM_SEED=123 npx vitest run --project sim test/sim/classic-group.sim.test.ts
 * More seeds: CLASSIC_SIM_SEEDS=5000.
 */
import { describe, expect, it } from "vitest";
import { ClassicGroupSim } from "./classic-group-sim-world.ts";
import type { ClassicSimCounts } from "./classic-group-sim-world.ts";

const stepsPerSeed = 200;
const replaySeed = process.env.CLASSIC_SIM_SEED === undefined ? undefined : Number(process.env.CLASSIC_SIM_SEED);
const seedCount = Number(process.env.CLASSIC_SIM_SEEDS ?? 500);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: seedCount }, (_, index) => index + 1);

function runSeed(seed: number): ClassicGroupSim {
  const sim = new ClassicGroupSim(seed);
  try {
    sim.run(stepsPerSeed);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `classic group simulation failed at seed ${seed}: ${message}\n` +
        `replay: CLASSIC_SIM_SEED=${seed} npx vitest run --project sim test/sim/classic-group.sim.test.ts\n` +
        sim.log.join("\n"),
    );
  }
  if (replaySeed !== undefined) console.log(sim.log.join("\n"));
  return sim;
}

describe("classic group simulation", () => {
  it(`keeps every check after every step, over ${seeds.length} seeds`, () => {
    const totals: Record<string, number> = {};
    for (const seed of seeds) {
      const sim = runSeed(seed);
      for (const [name, count] of Object.entries(sim.counts)) totals[name] = (totals[name] ?? 0) + count;
    }
    if (replaySeed !== undefined) return;
    // A simulation that never held a request, lost an answer or fenced a duplicate would prove little.
    const faults: (keyof ClassicSimCounts)[] = ["joins", "held", "lostAnswers", "rebalances", "fenced", "expired", "leaves", "crashes", "restarts", "duplicates", "commits"];
    for (const name of faults) expect(totals[name], name).toBeGreaterThan(seeds.length / 10);
  });

  it("is a pure function of its seed", () => {
    expect(runSeed(7).log).toEqual(runSeed(7).log);
  });
});
