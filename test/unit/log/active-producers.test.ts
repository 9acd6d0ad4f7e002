/** A partition's active producers as DescribeProducers shows them (src/log/active-producers.ts). */
import { describe, expect, it } from "vitest";
import { activeProducers } from "../../../src/log/active-producers.ts";
import type { ProducerEntry } from "../../../src/log/producer-state.ts";
import { MemoryTransactionStore, TransactionState } from "../../../src/log/transaction-state.ts";

const entry = (producerId: number, producerEpoch: number, lastSequence: number, lastOffset: number, lastActivityMs: number): ProducerEntry => ({
  producerId,
  producerEpoch,
  firstSequence: 0,
  runs: [{ firstSequence: 0, lastSequence, baseOffset: lastOffset - lastSequence, lastOffset }],
  lastActivityMs,
});

describe("activeProducers", () => {
  it("shows each producer's epoch, last sequence and write, and its open transaction's first offset", () => {
    const transactions = new TransactionState(new MemoryTransactionStore());
    transactions.recordBatch(2, 0, 10);
    const producers = [entry(1, 3, 4, 4, 100), entry(2, 0, 0, 10, 200)];
    expect(activeProducers(producers, transactions)).toEqual([
      { producerId: 1, producerEpoch: 3, lastSequence: 4, lastTimestamp: 100, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
      { producerId: 2, producerEpoch: 0, lastSequence: 0, lastTimestamp: 200, coordinatorEpoch: -1, currentTxnStartOffset: 10 },
    ]);
    // The commit's marker closes the transaction and carries the bumped epoch (KIP-890), in which nothing is written yet.
    transactions.recordMarker({ producerId: 2, producerEpoch: 1, result: "commit", coordinatorEpoch: 3 }, 11);
    expect(activeProducers(producers, transactions)[1]).toMatchObject({ producerId: 2, producerEpoch: 1, lastSequence: -1, coordinatorEpoch: 3, currentTxnStartOffset: -1 });
    // The next transaction opens: its producer still shows the last marker's coordinator epoch, as Kafka does.
    transactions.recordBatch(2, 1, 12);
    expect(activeProducers(producers, transactions)[1]).toMatchObject({ producerId: 2, coordinatorEpoch: 3, currentTxnStartOffset: 12 });
  });

  it("shows an open transaction whose producer's sequences were forgotten", () => {
    const transactions = new TransactionState(new MemoryTransactionStore());
    transactions.recordBatch(9, 4, 7);
    expect(activeProducers([entry(3, 0, 0, 0, 50)], transactions)).toEqual([
      { producerId: 3, producerEpoch: 0, lastSequence: 0, lastTimestamp: 50, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
      { producerId: 9, producerEpoch: 4, lastSequence: -1, lastTimestamp: -1, coordinatorEpoch: -1, currentTxnStartOffset: 7 },
    ]);
  });
});
