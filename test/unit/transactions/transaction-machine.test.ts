import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { producerEpochMax, transactionTimeoutMsMax } from "../../../src/limits.ts";
import {
  addGroup,
  addPartitions,
  adminAbort,
  end,
  expire,
  init,
  markersWritten,
  nextAlarmAt,
  restarted,
  type Outcome,
} from "../../../src/transactions/transaction-machine.ts";
import { emptyMetadata, type TransactionMetadata } from "../../../src/transactions/transaction-metadata.ts";

const a0 = { topic: "a", partition: 0 };
const b1 = { topic: "b", partition: 1 };

function doneOf(outcome: Outcome | { kind: "markers-first" } | null): Extract<Outcome, { kind: "done" }> {
  if (outcome === null || outcome.kind !== "done") throw new Error(`expected done, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function codeOf(body: () => unknown): string {
  try {
    body();
  } catch (error) {
    if (error instanceof TributaryError) return error.code;
    throw error;
  }
  throw new Error("no error");
}

/** A transactional id initialized by producer id 7 at epoch 0, timeout 10 s. */
function initialized(): TransactionMetadata {
  const first = init(emptyMetadata("t", 0), 10_000, 0);
  expect(first.kind).toBe("needs-producer-id");
  return doneOf(init(emptyMetadata("t", 0), 10_000, 0, 7)).metadata;
}

function ongoing(): TransactionMetadata {
  return doneOf(addPartitions(initialized(), { producerId: 7, producerEpoch: 0 }, [a0, b1], 100)).metadata;
}

describe("transaction coordinator rules", () => {
  it("init takes a new producer id at epoch 0, then bumps the epoch and fences the older instance", () => {
    const first = initialized();
    expect([first.producerId, first.producerEpoch, first.state]).toEqual([7, 0, "Empty"]);
    const second = doneOf(init(first, 10_000, 1)).metadata;
    expect([second.producerId, second.producerEpoch]).toEqual([7, 1]);
    expect(codeOf(() => addPartitions(second, { producerId: 7, producerEpoch: 0 }, [a0], 2))).toBe("PRODUCER_FENCED");
    expect(codeOf(() => addPartitions(second, { producerId: 7, producerEpoch: 2 }, [a0], 2))).toBe("INVALID_PRODUCER_EPOCH");
    expect(codeOf(() => addPartitions(second, { producerId: 8, producerEpoch: 1 }, [a0], 2))).toBe("INVALID_PRODUCER_ID_MAPPING");
  });

  it("init of a transactional id with an open transaction aborts it first, with the bumped epoch", () => {
    const open = ongoing();
    const outcome = init(open, 10_000, 200);
    if (outcome.kind !== "markers-first") throw new Error(outcome.kind);
    expect(outcome.metadata.state).toBe("PrepareAbort");
    expect(outcome.metadata.pending?.marker).toEqual({ producerId: 7, producerEpoch: 1, result: "abort" });
    expect(outcome.metadata.pending?.partitions).toEqual([a0, b1]);
    expect(codeOf(() => init(outcome.metadata, 10_000, 201))).toBe("CONCURRENT_TRANSACTIONS");
    const aborted = markersWritten(outcome.metadata, { partitions: [a0, b1], groups: [] }, 202);
    expect(aborted.state).toBe("CompleteAbort");
    const next = doneOf(init(aborted, 10_000, 203)).metadata;
    expect([next.producerId, next.producerEpoch]).toEqual([7, 2]);
  });

  // KIP-360, as a Kafka 4.4 broker answered InitProducerId v5 naming the identity held (compared by hand).
  it("an init naming the current identity bumps; naming the one held before that bump is a retry, answered as is; any older is fenced", () => {
    const first = initialized();
    const held = { producerId: 7, producerEpoch: 0 };
    const bumped = doneOf(init(first, 10_000, 1, undefined, held));
    expect(bumped.identity).toEqual({ producerId: 7, producerEpoch: 1 });
    const retried = doneOf(init(bumped.metadata, 10_000, 2, undefined, held));
    expect(retried.identity).toEqual({ producerId: 7, producerEpoch: 1 });
    const again = doneOf(init(retried.metadata, 10_000, 3, undefined, { producerId: 7, producerEpoch: 1 }));
    expect(again.identity).toEqual({ producerId: 7, producerEpoch: 2 });
    expect(codeOf(() => init(again.metadata, 10_000, 4, undefined, held))).toBe("PRODUCER_FENCED");
    expect(codeOf(() => init(again.metadata, 10_000, 4, undefined, { producerId: 8, producerEpoch: 2 }))).toBe("PRODUCER_FENCED");
    // A new instance (no identity named) fences the last holder's retry too.
    const fresh = doneOf(init(again.metadata, 10_000, 5)).metadata;
    expect(codeOf(() => init(fresh, 10_000, 6, undefined, { producerId: 7, producerEpoch: 2 }))).toBe("PRODUCER_FENCED");
  });

  it("after a timeout's abort the producer re-initializes with the identity it held: it gets the bumped epoch, not PRODUCER_FENCED", () => {
    const timedOut = markersWritten(doneOf(expire(ongoing(), 100 + 10_000)!).metadata, { partitions: [a0, b1], groups: [] }, 10_200);
    expect([timedOut.state, timedOut.producerEpoch]).toEqual(["CompleteAbort", 1]);
    const reinit = doneOf(init(timedOut, 10_000, 10_300, undefined, { producerId: 7, producerEpoch: 0 }));
    expect(reinit.identity).toEqual({ producerId: 7, producerEpoch: 1 });
    expect(reinit.metadata.state).toBe("Empty");
    // Its retry is answered the same; with the epoch it was given, the next bump.
    expect(doneOf(init(reinit.metadata, 10_000, 10_400, undefined, { producerId: 7, producerEpoch: 0 })).identity).toEqual({ producerId: 7, producerEpoch: 1 });
    expect(doneOf(init(reinit.metadata, 10_000, 10_400, undefined, { producerId: 7, producerEpoch: 1 })).identity).toEqual({ producerId: 7, producerEpoch: 2 });
  });

  it("an init naming the current identity while its transaction is open aborts it first, then answers the bumped epoch once", () => {
    const outcome = init(ongoing(), 10_000, 200, undefined, { producerId: 7, producerEpoch: 0 });
    if (outcome.kind !== "markers-first") throw new Error(outcome.kind);
    const aborted = markersWritten(outcome.metadata, { partitions: [a0, b1], groups: [] }, 202);
    expect(doneOf(init(aborted, 10_000, 203, undefined, { producerId: 7, producerEpoch: 0 })).identity).toEqual({ producerId: 7, producerEpoch: 1 });
  });

  it("refuses a timeout outside the deployment's bounds", () => {
    expect(codeOf(() => init(emptyMetadata("t", 0), transactionTimeoutMsMax + 1, 0, 1))).toBe("INVALID_TRANSACTION_TIMEOUT");
    expect(codeOf(() => init(emptyMetadata("t", 0), 10, 0, 1))).toBe("INVALID_TRANSACTION_TIMEOUT");
  });

  it("a commit bumps the epoch (KIP-890): markers and the producer's next transaction carry epoch + 1", () => {
    const committing = doneOf(end(ongoing(), { producerId: 7, producerEpoch: 0 }, "commit", 300));
    expect(committing.identity).toEqual({ producerId: 7, producerEpoch: 1 });
    expect(committing.metadata.state).toBe("PrepareCommit");
    expect(committing.metadata.pending?.marker).toEqual({ producerId: 7, producerEpoch: 1, result: "commit" });
    // A write of the ended transaction's epoch is now fenced at the coordinator too.
    expect(codeOf(() => addPartitions(committing.metadata, { producerId: 7, producerEpoch: 0 }, [a0], 301))).toBe("PRODUCER_FENCED");
    // The next transaction waits for the markers.
    expect(codeOf(() => addPartitions(committing.metadata, committing.identity, [a0], 301))).toBe("CONCURRENT_TRANSACTIONS");
    const half = markersWritten(committing.metadata, { partitions: [a0], groups: [] }, 302);
    expect(half.state).toBe("PrepareCommit");
    expect(half.pending?.partitions).toEqual([b1]);
    const complete = markersWritten(half, { partitions: [b1], groups: [] }, 303);
    expect(complete.state).toBe("CompleteCommit");
    expect(doneOf(addPartitions(complete, committing.identity, [a0], 304)).metadata.state).toBe("Ongoing");
  });

  it("answers a retried end again, and refuses a retried end with the other result", () => {
    const committing = doneOf(end(ongoing(), { producerId: 7, producerEpoch: 0 }, "commit", 300));
    const retried = doneOf(end(committing.metadata, { producerId: 7, producerEpoch: 0 }, "commit", 301));
    expect(retried.changed).toBe(false);
    expect(retried.identity).toEqual(committing.identity);
    expect(codeOf(() => end(committing.metadata, { producerId: 7, producerEpoch: 0 }, "abort", 301))).toBe("INVALID_TXN_STATE");
    expect(codeOf(() => end(committing.metadata, committing.identity, "commit", 301))).toBe("CONCURRENT_TRANSACTIONS");
  });

  it("refuses a commit with no open transaction", () => {
    expect(codeOf(() => end(initialized(), { producerId: 7, producerEpoch: 0 }, "commit", 1))).toBe("INVALID_TXN_STATE");
  });

  it("takes an abort with no open transaction as Kafka's transaction version 2 does: the epoch bumped, no marker to write", () => {
    const aborted = doneOf(end(initialized(), { producerId: 7, producerEpoch: 0 }, "abort", 1));
    expect(aborted.identity).toEqual({ producerId: 7, producerEpoch: 1 });
    expect(aborted.metadata).toMatchObject({ state: "PrepareAbort", pending: { partitions: [], groups: [], marker: { result: "abort" } } });
    // After a commit too, with the identity the commit answered; the old identity's abort stays refused.
    const committed = doneOf(end(ongoing(), { producerId: 7, producerEpoch: 0 }, "commit", 300));
    const completed = { ...committed.metadata, state: "CompleteCommit" as const, pending: null, partitions: [], groups: [] };
    expect(doneOf(end(completed, committed.identity, "abort", 301)).identity).toEqual({ producerId: 7, producerEpoch: committed.identity.producerEpoch + 1 });
    expect(codeOf(() => end(completed, { producerId: 7, producerEpoch: 0 }, "abort", 301))).toBe("INVALID_TXN_STATE");
  });

  it("aborts a transaction past its timeout, and its producer's commit is then refused while its abort is answered", () => {
    const open = ongoing();
    expect(nextAlarmAt(open, 150)).toBe(100 + 10_000);
    expect(expire(open, 100 + 9_999)).toBeNull();
    const aborting = doneOf(expire(open, 100 + 10_000)).metadata;
    expect(aborting.state).toBe("PrepareAbort");
    expect(aborting.pending?.reason).toBe("timeout");
    expect(codeOf(() => end(aborting, { producerId: 7, producerEpoch: 0 }, "commit", 10_200))).toBe("INVALID_TXN_STATE");
    expect(doneOf(end(aborting, { producerId: 7, producerEpoch: 0 }, "abort", 10_200)).identity).toEqual({ producerId: 7, producerEpoch: 1 });
  });

  it("adds a group's offsets to the transaction; its marker is pending with the partitions'", () => {
    const withGroup = doneOf(addGroup(ongoing(), { producerId: 7, producerEpoch: 0 }, "g", 150)).metadata;
    const committing = doneOf(end(withGroup, { producerId: 7, producerEpoch: 0 }, "commit", 300)).metadata;
    expect(committing.pending?.groups).toEqual(["g"]);
    const partitionsOnly = markersWritten(committing, { partitions: [a0, b1], groups: [] }, 301);
    expect(partitionsOnly.state).toBe("PrepareCommit");
    expect(markersWritten(partitionsOnly, { partitions: [], groups: ["g"] }, 302).state).toBe("CompleteCommit");
  });

  it("adding partitions already added changes nothing", () => {
    const open = ongoing();
    expect(doneOf(addPartitions(open, { producerId: 7, producerEpoch: 0 }, [b1], 200)).changed).toBe(false);
  });

  it("moves to a new producer id when the bumped epoch would reach the maximum, fencing the old id", () => {
    const nearMax: TransactionMetadata = { ...ongoing(), producerEpoch: producerEpochMax - 1 };
    expect(end(nearMax, { producerId: 7, producerEpoch: producerEpochMax - 1 }, "commit", 300).kind).toBe("needs-producer-id");
    const committing = doneOf(end(nearMax, { producerId: 7, producerEpoch: producerEpochMax - 1 }, "commit", 300, 9));
    expect(committing.metadata.pending?.marker).toEqual({ producerId: 7, producerEpoch: producerEpochMax, result: "commit" });
    expect(committing.identity).toEqual({ producerId: 9, producerEpoch: 0 });
    const complete = markersWritten(committing.metadata, { partitions: [a0, b1], groups: [] }, 301);
    expect(codeOf(() => addPartitions(complete, { producerId: 7, producerEpoch: producerEpochMax - 1 }, [a0], 302))).toBe("PRODUCER_FENCED");
    // init near the maximum also moves on
    const idle: TransactionMetadata = { ...initialized(), producerEpoch: producerEpochMax - 1 };
    expect(init(idle, 10_000, 1).kind).toBe("needs-producer-id");
    expect(doneOf(init(idle, 10_000, 1, 10)).identity).toEqual({ producerId: 10, producerEpoch: 0 });
  });

  it("an admin's abort ends an open transaction and leaves an ending one alone", () => {
    const aborting = doneOf(adminAbort(ongoing(), 200));
    expect(aborting.metadata.state).toBe("PrepareAbort");
    expect(doneOf(adminAbort(aborting.metadata, 201)).changed).toBe(false);
    expect(codeOf(() => adminAbort(initialized(), 1))).toBe("INVALID_TXN_STATE");
  });

  it("backs marker retries off and counts the coordinator's restarts", () => {
    const committing = doneOf(end(ongoing(), { producerId: 7, producerEpoch: 0 }, "commit", 300)).metadata;
    const first = nextAlarmAt(committing, 1_000)! - 1_000;
    const later = nextAlarmAt(markersWritten(committing, { partitions: [], groups: [] }, 1_000), 1_000)! - 1_000;
    expect(later).toBeGreaterThan(first);
    expect(restarted(committing).coordinatorEpoch).toBe(committing.coordinatorEpoch + 1);
    expect(nextAlarmAt(initialized(), 0)).toBeNull();
  });
});
