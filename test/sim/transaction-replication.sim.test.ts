/**
 * Seeded simulation of transactions over replicated partitions (issue 28, "A seeded
 * simulation"): the real transaction machine (src/transactions/) driven as its object drives
 * it, the real group offsets rules (src/group/transactional-offsets.ts), and three partitions
 * each of 3 or 5 real ReplicaNodes over real PartitionLogs (transaction state, last stable
 * offset, aborted index, markers, producer state and sequences), under every fault of the
 * replication simulation — lost, duplicated, delayed and reordered messages, crashes and
 * restarts at every step, cut links, leader elections, truncations — with the coordinator
 * crashing, evicted and timing transactions out, two instances of one transactional id fencing
 * each other, and read_committed readers at leaders and followers. After every step, the
 * properties of transaction-replication-sim-checks.ts (no aborted read, no torn transaction,
 * no lost committed write, the LSO never past an open transaction nor the high watermark and
 * never back, no write landing in a later transaction, every marker a durable decision), of
 * the replication simulation (replication-sim-checks.ts), and of the groups (offsets committed
 * only by a commit, no late offset commit); the coordinator checks fencing at each request.
 * After settling: no hanging transaction, every marker everywhere, offsets committed exactly
 * when their transaction committed.
 *
 * Each property is shown to catch a bug: the "injected bugs" block runs the world with one duty
 * done wrong (in the coordinator, a partition's log, a reader or a producer's acks) and expects
 * the failure it names within its seeds.
 *
 * Replay one seed, its log printed: TXN_REPLICATION_SIM_SEED=123 npx vitest run --project sim test/sim/transaction-replication.sim.test.ts
 * More seeds: TXN_REPLICATION_SIM_SEEDS=5000; longer runs: TXN_REPLICATION_SIM_STEPS=1000.
 */
import { describe, expect, it } from "vitest";
import { TxnReplicationSim, type TxnReplicationBug } from "./transaction-replication-sim-world.ts";

const stepsPerSeed = Number(process.env.TXN_REPLICATION_SIM_STEPS ?? 200);
const replaySeed = process.env.TXN_REPLICATION_SIM_SEED === undefined ? undefined : Number(process.env.TXN_REPLICATION_SIM_SEED);
const seedCount = Number(process.env.TXN_REPLICATION_SIM_SEEDS ?? 1000);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: seedCount }, (_, index) => index + 1);

function story(sim: TxnReplicationSim): string {
  return [...sim.log, ...sim.partitions.map((partition) => `${partition.name}:\n${partition.log.join("\n")}\n${partition.describeReplicas()}`)].join("\n");
}

function runSeed(seed: number): TxnReplicationSim {
  const sim = new TxnReplicationSim(seed);
  try {
    sim.run(stepsPerSeed);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `transactions-under-replication simulation failed at seed ${seed}: ${message}\n` +
        `replay: TXN_REPLICATION_SIM_SEED=${seed} npx vitest run --project sim test/sim/transaction-replication.sim.test.ts\n` +
        (replaySeed !== undefined ? story(sim) : sim.log.slice(-60).join("\n")),
    );
  }
  if (replaySeed !== undefined) console.log(story(sim));
  return sim;
}

/**
 * Runs seeds of a world with `bug` until one fails as `caughtBy` says (the property the bug breaks
 * caught it); other seeds may fail first on another property the bug also breaks. Returns the
 * failures met, the matching one last.
 */
function failuresWith(bug: TxnReplicationBug, caughtBy: RegExp, limit: number): string[] {
  const failures: string[] = [];
  for (let seed = 1; seed <= limit; seed++) {
    try {
      new TxnReplicationSim(seed, bug).run(stepsPerSeed);
    } catch (error) {
      failures.push(`seed ${seed}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      if (caughtBy.test(error instanceof Error ? error.message : "")) return failures;
    }
  }
  return failures;
}

describe("transactions over replicated partitions simulation", () => {
  it(`keeps every property after every step and settles every transaction, over ${seeds.length} seeds`, () => {
    const totals: Record<string, number> = {};
    for (const seed of seeds) {
      const sim = runSeed(seed);
      const partitionCounts = sim.partitions.map((partition) => partition.counts as unknown as Record<string, number>);
      for (const counts of [sim.counts, sim.coordinator.counts, ...partitionCounts]) {
        for (const [name, count] of Object.entries(counts)) totals[name] = (totals[name] ?? 0) + count;
      }
    }
    if (process.env.TXN_REPLICATION_SIM_STATS) console.log(totals);
    if (replaySeed !== undefined) return;
    // A run that never failed over a partition mid-transaction, crashed a coordinator or read past a marker would prove little.
    const exercised = [
      "writesAcked", "writesRefused", "markersAcked", "committedReads", "readsPastCommits", "coordinatorCrashes", "requestsLost", "requestsDuplicated", "lost", "duplicated", "commits", "aborts",
      "fencedAnswers", "timeouts", "incompleteRounds", "crashes", "elections", "truncations", "truncatedRecords", "fenced",
    ];
    for (const name of exercised) expect(totals[name], name).toBeGreaterThan(seeds.length / 10);
  });

  it.skipIf(replaySeed !== undefined)("is a pure function of its seed", () => {
    const run = (seed: number) => {
      const sim = new TxnReplicationSim(seed);
      sim.run(stepsPerSeed);
      return story(sim);
    };
    for (const seed of [1, 7]) expect(run(seed)).toEqual(run(seed));
  });

  describe.skipIf(replaySeed !== undefined)("injected bugs are caught", () => {
    const bugs: { bug: TxnReplicationBug; caughtBy: RegExp }[] = [
      { bug: "reader-ignores-aborted", caughtBy: /^aborted read/ },
      { bug: "reader-pages-off-by-one", caughtBy: /^torn transaction/ },
      { bug: "acks-1-writes", caughtBy: /^lost committed write/ },
      { bug: "group-commits-aborted-offsets", caughtBy: /^offsets committed without a commit/ },
      { bug: "lso-ignores-open", caughtBy: /^LSO passes an open transaction/ },
      { bug: "lso-past-high-watermark", caughtBy: /^LSO passes the high watermark/ },
      { bug: "follower-read-to-leader-lso", caughtBy: /^LSO went back/ },
      { bug: "no-epoch-bump", caughtBy: /^late write/ },
      { bug: "no-fencing", caughtBy: /^fencing/ },
      { bug: "markers-before-decision", caughtBy: /^marker without a durable decision|^marker unlike its decision/ },
      { bug: "complete-early", caughtBy: /^hanging transaction|never got transaction/ },
      { bug: "no-timeout", caughtBy: /^a transaction never ended/ },
    ];
    for (const { bug, caughtBy } of bugs) {
      it(bug, () => {
        const failures = failuresWith(bug, caughtBy, 60);
        const last = failures.at(-1)?.replace(/^seed \d+: /, "") ?? "no failure in 60 seeds";
        expect(last, failures.join("\n")).toMatch(caughtBy);
      });
    }
    // The router's implicit add taking a write of an ended transaction into the next one: here a
    // late implicit write is rare (the producer mostly flushes before its end, and the next
    // transaction waits for the markers), about one seed in 200 at 1,000 steps, so one such seed
    // stands for it (the coordinator simulation catches it within a few seeds).
    it("implicit-add-old-epoch (seed 160, 1,000 steps)", () => {
      expect(() => new TxnReplicationSim(160, "implicit-add-old-epoch").run(1_000)).toThrow(/^late write/);
      expect(() => new TxnReplicationSim(160).run(1_000)).not.toThrow();
    });
  });
});
