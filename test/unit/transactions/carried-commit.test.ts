import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { CarriedCommits, type CarriedCommitAnswer, type CarriedWrite } from "../../../src/transactions/carried-commit.ts";

/** A clock the test moves: timers run when `advance` passes them. */
function fakeClock() {
  let now = 0;
  const timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  return {
    schedule(ms: number, run: () => void) {
      const timer = { at: now + ms, run, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers.splice(0)) {
        if (timer.cancelled) continue;
        if (timer.at <= now) timer.run();
        else timers.push(timer);
      }
    },
    pending: () => timers.filter((timer) => !timer.cancelled).length,
  };
}

const identity = { producerId: 7, producerEpoch: 3 };
const next = { producerId: 7, producerEpoch: 4 };
const write = (partition: number, baseOffset = 10 * partition): CarriedWrite => ({ topic: "t", partition, baseOffset, lastOffset: baseOffset + 4 });

/** Whether the promise settled by now (after the microtasks queued so far). */
async function settled<T>(promise: Promise<T>): Promise<{ value: T } | null> {
  let result: { value: T } | null = null;
  void promise.then((value) => (result = { value }));
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

describe("a commit carried by a transaction's last writes", () => {
  it("commits once every write has reported, once, and answers each report with the next identity", async () => {
    const clock = fakeClock();
    const carried = new CarriedCommits(5_000, clock.schedule);
    let commits = 0;
    const commit = async () => {
      commits++;
      return next;
    };
    const first = carried.arrive(identity, 3, write(0), commit);
    const again = carried.arrive(identity, 3, write(0), commit); // a retry of the same partition counts once
    expect(await settled(first)).toBeNull();
    const second = carried.arrive(identity, 3, write(1), commit);
    expect(await settled(second)).toBeNull();
    expect(commits).toBe(0);
    const last = await carried.arrive(identity, 3, write(2), commit);
    expect(last).toEqual({ ended: next });
    expect(await first).toEqual({ ended: next });
    expect(await again).toEqual({ ended: next });
    expect(await second).toEqual({ ended: next });
    expect(commits).toBe(1);
    expect(clock.pending()).toBe(0); // the wait's timer is gone
  });

  it("answers a write retried after the commit as its first attempt (offsets and identity); one it never counted is not", async () => {
    const carried = new CarriedCommits(5_000, fakeClock().schedule);
    const answer = await carried.arrive(identity, 1, write(3, 42), async () => next);
    expect(answer).toEqual({ ended: next });
    const failure = { code: "INVALID_PRODUCER_EPOCH", message: "bumped", retriable: false };
    expect(carried.failed(identity, 1, { topic: "t", partition: 3 }, failure)).toEqual({ write: write(3, 42), answer: { ended: next } });
    expect(carried.failed(identity, 1, { topic: "t", partition: 4 }, failure)).toBeNull();
    expect(carried.failed({ producerId: 7, producerEpoch: 2 }, 1, { topic: "t", partition: 3 }, failure)).toBeNull();
    // The same write arriving again (a retry whose append the partition answered as a duplicate).
    expect(await carried.arrive(identity, 1, write(3, 42), async () => Promise.reject(new Error("must not commit twice")))).toEqual({ ended: next });
  });

  it("does not commit when a write fails for good, and answers the others why", async () => {
    const carried = new CarriedCommits(5_000, fakeClock().schedule);
    let commits = 0;
    const commit = async () => {
      commits++;
      return next;
    };
    const first = carried.arrive(identity, 2, write(0), commit);
    // A retriable failure leaves the round open: the retry may still come.
    expect(carried.failed(identity, 2, { topic: "t", partition: 1 }, { code: "REQUEST_TIMED_OUT", message: "slow", retriable: true })).toBeNull();
    expect(await settled(first)).toBeNull();
    expect(carried.failed(identity, 2, { topic: "t", partition: 1 }, { code: "OUT_OF_ORDER_SEQUENCE_NUMBER", message: "gap", retriable: false })).toBeNull();
    const answer = (await first) as Extract<CarriedCommitAnswer, { ended: null }>;
    expect(answer.ended).toBeNull();
    expect(answer.error.code).toBe("OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(answer.error.message).toContain("t/1");
    // The partition's write arriving late changes nothing: the round is over.
    expect((await carried.arrive(identity, 2, write(1), commit)).ended).toBeNull();
    expect(commits).toBe(0);
  });

  it("answers without the commit when the rest do not arrive in time", async () => {
    const clock = fakeClock();
    const carried = new CarriedCommits(5_000, clock.schedule);
    const first = carried.arrive(identity, 2, write(0), async () => next);
    clock.advance(4_999);
    expect(await settled(first)).toBeNull();
    clock.advance(1);
    const answer = await first;
    expect(answer).toMatchObject({ ended: null, error: { code: "REQUEST_TIMED_OUT" } });
  });

  it("gives the end's refusal to every report, and a newer transaction's round ends an older one left open", async () => {
    const carried = new CarriedCommits(5_000, fakeClock().schedule);
    const first = carried.arrive(identity, 2, write(0), async () => next);
    const refused = carried.arrive(identity, 2, write(1), async () => {
      throw new TributaryError("INVALID_TXN_STATE", "timed out");
    });
    expect(await refused).toEqual({ ended: null, error: { code: "INVALID_TXN_STATE", message: "timed out" } });
    expect(await first).toEqual({ ended: null, error: { code: "INVALID_TXN_STATE", message: "timed out" } });

    const open = carried.arrive(next, 2, write(0), async () => next);
    const newer = { producerId: 7, producerEpoch: 5 };
    void carried.arrive(newer, 1, write(0), async () => ({ producerId: 7, producerEpoch: 6 }));
    expect(await open).toMatchObject({ ended: null, error: { code: "INVALID_TXN_STATE" } });
  });
});
