/**
 * A partition's active producers, as Kafka's DescribeProducers shows them (KIP-664; docs/api.md,
 * Transactions): every producer the partition remembers (producer-state.ts) with its epoch, the
 * last sequence and time it wrote, and the first offset of its open transaction
 * (transaction-state.ts), -1 when none is open. The epoch is the higher of the producer's last
 * write and its last marker (every transaction end bumps it, KIP-890); past a marker's bump the
 * producer has written no sequence in its new epoch yet: -1, as Kafka 4.4 answers (compared by
 * hand). The coordinator epoch is the last marker's, -1 before any, as Kafka answers. Pure.
 */
import type { ProducerEntry } from "./producer-state.ts";
import type { TransactionState } from "./transaction-state.ts";

export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  /** The last sequence written here; -1 when none is remembered. */
  lastSequence: number;
  /** When the producer last wrote here (ms); -1 when unknown. */
  lastTimestamp: number;
  coordinatorEpoch: number;
  /** The first offset of its open transaction; -1 when none is open. */
  currentTxnStartOffset: number;
}

export function activeProducers(producers: readonly ProducerEntry[], transactions: TransactionState): ActiveProducer[] {
  const byId = new Map<number, ActiveProducer>();
  for (const entry of producers) {
    const transaction = transactions.entry(entry.producerId);
    const producerEpoch = Math.max(entry.producerEpoch, transaction?.producerEpoch ?? -1);
    byId.set(entry.producerId, {
      producerId: entry.producerId,
      producerEpoch,
      lastSequence: producerEpoch === entry.producerEpoch ? entry.runs.at(-1)!.lastSequence : -1,
      lastTimestamp: entry.lastActivityMs,
      coordinatorEpoch: transaction?.lastMarker?.coordinatorEpoch ?? -1,
      currentTxnStartOffset: transaction?.openFirstOffset ?? -1,
    });
  }
  // An open transaction whose producer's sequences were forgotten (idle) still holds the last stable offset back.
  for (const open of transactions.openTransactions()) {
    if (byId.has(open.producerId)) continue;
    byId.set(open.producerId, { producerId: open.producerId, producerEpoch: open.producerEpoch, lastSequence: -1, lastTimestamp: -1, coordinatorEpoch: open.coordinatorEpoch, currentTxnStartOffset: open.firstOffset });
  }
  return [...byId.values()].sort((a, b) => a.producerId - b.producerId);
}
