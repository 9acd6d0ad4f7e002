/**
 * Seeded simulation of the commit carried by a transaction's last writes
 * (src/transactions/carried-commit.ts, as the coordinator object holds it): rounds of 1–4 writes
 * whose reports arrive in any order, duplicated (a retried write the partition answered as a
 * duplicate), late past the wait, never (a write in a retry loop), or replaced by a failure —
 * retriable (its retry may still come) or for good (that write never lands); the end itself
 * slow (reports meanwhile) or refused; a newer transaction's round starting over an old one.
 * Checked at every step and after each round: the end runs at most once a round, and only when
 * every one of its writes has reported and none failed for good; every report is answered, all
 * of a round with the same outcome, "committed" exactly when the end ran and succeeded; a write
 * retried after the commit gets its first attempt's offsets, one that never counted gets none.
 *
 * Replay one seed: CARRIED_SIM_SEED=12 npx vitest run --project sim test/sim/carried-commit.sim.test.ts
 */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../src/errors.ts";
import { CarriedCommits, type CarriedCommitAnswer, type CarriedWrite } from "../../src/transactions/carried-commit.ts";
import { SeededRandom } from "./group-sim-random.ts";

const waitMs = 5_000;
const roundsPerSeed = 12;
const replaySeed = process.env.CARRIED_SIM_SEED === undefined ? undefined : Number(process.env.CARRIED_SIM_SEED);
const seeds = replaySeed !== undefined ? [replaySeed] : Array.from({ length: Number(process.env.CARRIED_SIM_SEEDS ?? 1000) }, (_, index) => index + 1);

/** A clock the simulation moves; timers run when it passes them. */
class SimClock {
  now = 0;
  readonly #timers: { at: number; run: () => void; cancelled: boolean }[] = [];

  schedule = (ms: number, run: () => void): (() => void) => {
    const timer = { at: this.now + ms, run, cancelled: false };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };

  advance(ms: number): void {
    this.now += ms;
    for (const timer of this.#timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.at <= this.now) timer.run();
      else this.#timers.push(timer);
    }
  }
}

/** Lets every promise continuation queued so far run (the end's awaits, the reports' answers). */
async function settle(turns = 8): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await Promise.resolve();
}

type Event = { kind: "arrive"; partition: number } | { kind: "fail"; partition: number; retriable: boolean } | { kind: "tick"; ms: number } | { kind: "turns" };

function writeOf(round: number, partition: number): CarriedWrite {
  return { topic: `t${round}`, partition, baseOffset: round * 100 + partition * 10, lastOffset: round * 100 + partition * 10 + 4 };
}

/** What the simulation drives: the coordinator's rounds (CarriedCommits), or a wrong one of the injected bugs. */
type Rounds = Pick<CarriedCommits, "arrive" | "failed">;

/** Wrong rounds, each of which the properties must catch: the end on the first report, no wait's end, offsets for any retried write. */
type Bug = "end-on-first-report" | "wait-forever" | "offsets-for-any-retry";

function roundsWith(bug: Bug | undefined, clock: SimClock): Rounds {
  if (bug === "wait-forever") return new CarriedCommits(waitMs, () => () => {});
  const real = new CarriedCommits(waitMs, clock.schedule);
  if (bug === "end-on-first-report") return { arrive: (identity, _writes, write, commit) => real.arrive(identity, 1, write, commit), failed: (...args) => real.failed(...args) };
  if (bug === "offsets-for-any-retry") {
    return {
      arrive: (...args) => real.arrive(...args),
      failed: (identity, writes, write, error) => real.failed(identity, writes, write, error) ?? (error.retriable ? null : { write: { ...write, baseOffset: 0, lastOffset: 0 }, answer: { ended: identity } }),
    };
  }
  return real;
}

async function runSeed(seed: number, bug?: Bug): Promise<{ commits: number; refusals: number; timeouts: number; failures: number }> {
  const rng = new SeededRandom(seed);
  const clock = new SimClock();
  const carried = roundsWith(bug, clock);
  const totals = { commits: 0, refusals: 0, timeouts: 0, failures: 0 };
  for (let round = 0; round < roundsPerSeed; round++) {
    const identity = { producerId: 1, producerEpoch: round };
    const next = { producerId: 1, producerEpoch: round + 1 };
    const writes = rng.int(1, 4);
    // Ghost state: what has reached the coordinator, and what the end did.
    const arrived = new Set<number>();
    let failedForGood = false;
    let timedOut = false;
    let startedAt: number | null = null;
    let endCalls = 0;
    let endSucceeded = false;
    const refuse = rng.chance(0.1);
    const answers: Promise<CarriedCommitAnswer>[] = [];
    const commit = async () => {
      const where = `seed ${seed} round ${round}`;
      if (endCalls > 0) throw new Error(`${where}: the end ran twice`);
      if (arrived.size !== writes) throw new Error(`${where}: the end ran with ${arrived.size} of ${writes} writes reported`);
      if (failedForGood) throw new Error(`${where}: the end ran after a write failed for good`);
      if (timedOut) throw new Error(`${where}: the end ran after the wait was over`);
      endCalls++;
      await settle(rng.int(0, 4)); // the decision's durable write and its markers take turns
      if (refuse) throw new TributaryError("INVALID_TXN_STATE", "the transaction timed out");
      endSucceeded = true;
      return next;
    };
    // Each write: reported once (maybe twice), or never, or failed; a retriable failure may precede its report.
    const events: Event[] = [];
    for (let partition = 0; partition < writes; partition++) {
      const fate = rng.next();
      if (fate < 0.08) events.push({ kind: "fail", partition, retriable: false });
      else if (fate < 0.13) continue; // never reported: its write is still being retried
      else {
        if (rng.chance(0.2)) events.push({ kind: "fail", partition, retriable: true });
        events.push({ kind: "arrive", partition });
        if (rng.chance(0.2)) events.push({ kind: "arrive", partition });
      }
    }
    for (let index = 0; index < rng.int(0, 3); index++) events.push({ kind: "turns" });
    if (rng.chance(0.1)) events.push({ kind: "tick", ms: waitMs + 1 });
    for (let index = events.length - 1; index > 0; index--) {
      const other = rng.int(0, index);
      [events[index], events[other]] = [events[other]!, events[index]!];
    }
    for (const event of events) {
      if (event.kind === "turns") await settle(rng.int(1, 4));
      else if (event.kind === "tick") {
        if (startedAt !== null && clock.now + event.ms >= startedAt + waitMs && endCalls === 0) timedOut = true;
        clock.advance(event.ms);
      } else if (event.kind === "fail") {
        const committing = endCalls > 0;
        const first = carried.failed(identity, writes, { topic: `t${round}`, partition: event.partition }, { code: event.retriable ? "REQUEST_TIMED_OUT" : "OUT_OF_ORDER_SEQUENCE_NUMBER", message: "refused", retriable: event.retriable });
        if (first !== null && (!endSucceeded || !arrived.has(event.partition))) throw new Error(`seed ${seed} round ${round}: a failed write got offsets it never had`);
        if (!event.retriable && !committing && startedAt !== null) failedForGood = true;
        if (!event.retriable) totals.failures++;
      } else {
        if (startedAt === null) startedAt = clock.now;
        if (!timedOut) arrived.add(event.partition);
        answers.push(carried.arrive(identity, writes, writeOf(round, event.partition), commit));
      }
      await settle(1);
    }
    // The wait runs out for a round left waiting: every report is answered.
    await settle();
    if (startedAt !== null && endCalls === 0) timedOut = true;
    clock.advance(waitMs + 1);
    await settle();
    const settled = await Promise.all(answers.map((answer) => Promise.race([answer, Promise.resolve("pending" as const)])));
    if (settled.includes("pending")) throw new Error(`seed ${seed} round ${round}: a report was never answered`);
    const outcomes = new Set(settled.map((answer) => JSON.stringify(answer)));
    if (outcomes.size > 1) throw new Error(`seed ${seed} round ${round}: the reports got different outcomes ${[...outcomes].join(" / ")}`);
    const committed = settled.some((answer) => typeof answer === "object" && answer.ended !== null);
    if (committed !== endSucceeded) throw new Error(`seed ${seed} round ${round}: answered committed ${committed}, the end ${endSucceeded ? "succeeded" : "did not"}`);
    if (committed) totals.commits++;
    else if (endCalls > 0) totals.refusals++;
    else if (answers.length > 0) totals.timeouts++;
    // A write retried after the round: its first offsets when the round committed with it, else nothing.
    for (let partition = 0; partition < writes; partition++) {
      const retry = carried.failed(identity, writes, { topic: `t${round}`, partition }, { code: "INVALID_PRODUCER_EPOCH", message: "bumped", retriable: false });
      const expected = committed && arrived.has(partition) ? { write: writeOf(round, partition), answer: { ended: next } } : null;
      if (JSON.stringify(retry) !== JSON.stringify(expected)) throw new Error(`seed ${seed} round ${round}: a write retried after the round got ${JSON.stringify(retry)}, not ${JSON.stringify(expected)}`);
    }
  }
  return totals;
}

describe("the carried commit's rounds under reordered, duplicated, failed and late reports", () => {
  it(`end only when every write has reported, once, and answer every report alike, over ${seeds.length} seeds`, async () => {
    const totals = { commits: 0, refusals: 0, timeouts: 0, failures: 0 };
    for (const seed of seeds) {
      const counts = await runSeed(seed);
      for (const name of Object.keys(totals) as (keyof typeof totals)[]) totals[name] += counts[name];
    }
    if (replaySeed !== undefined) return;
    // A run that never committed, never refused, never timed out or never failed a write would prove little.
    for (const [name, count] of Object.entries(totals)) expect(count, name).toBeGreaterThan(seeds.length / 10);
  });

  describe("injected bugs are caught", () => {
    const bugs: { bug: Bug; caughtBy: RegExp }[] = [
      { bug: "end-on-first-report", caughtBy: /the end ran with \d of \d writes reported/ },
      { bug: "wait-forever", caughtBy: /a report was never answered/ },
      { bug: "offsets-for-any-retry", caughtBy: /a failed write got offsets it never had|a write retried after the round got/ },
    ];
    it.each(bugs)("$bug", async ({ bug, caughtBy }) => {
      let failure: string | null = null;
      for (let seed = 1; seed <= 200 && failure === null; seed++) {
        try {
          await runSeed(seed, bug);
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
      }
      expect(failure).toMatch(caughtBy);
    });
  });
});
