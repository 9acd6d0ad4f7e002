/**
 * The produce path's check of a transactional write (issue 28, TXN-CONTRACT): before the
 * router forwards a transactional producer's batches, the producer's coordinator confirms that
 * it is the transactional id's current producer and adds to its open transaction every
 * partition written that it had not added (KIP-890 part 2's implicit add: the producer sends no
 * separate add). Confirmed partitions are remembered per isolate for the transaction
 * (producer id and epoch: the epoch moves at every end, so a new transaction is a new entry);
 * a refusal is never remembered. A write delayed past its transaction's end is refused by the
 * partition itself (the epoch rule), whatever this cache says.
 */
import { verifiedTransactionsCachedMax } from "../limits.ts";
import { coordinatorCalls } from "./coordinator-calls.ts";
import type { ProducerIdentity, TopicPartition } from "../contracts/transaction-coordinator-api.ts";

/** By `transactionalId/producerId/producerEpoch`: the partitions confirmed, oldest entry first. */
const verified = new Map<string, Set<string>>();

function transactionKey(transactionalId: string, identity: ProducerIdentity): string {
  return JSON.stringify([transactionalId, identity.producerId, identity.producerEpoch]);
}

function partitionKey(partition: TopicPartition): string {
  return `${partition.topic}\u0000${partition.partition}`;
}

/** Throws the coordinator's refusal (PRODUCER_FENCED, CONCURRENT_TRANSACTIONS, …); resolves when every partition is in the open transaction. */
export async function verifyTransactionalWrite(env: Env, transactionalId: string, identity: ProducerIdentity, partitions: readonly TopicPartition[]): Promise<void> {
  const key = transactionKey(transactionalId, identity);
  const known = verified.get(key);
  const unverified = partitions.filter((partition) => !known?.has(partitionKey(partition)));
  if (unverified.length === 0) return;
  await coordinatorCalls(env).addPartitionsForWrite(transactionalId, identity, unverified);
  const entry = verified.get(key) ?? new Set<string>();
  for (const partition of unverified) entry.add(partitionKey(partition));
  verified.delete(key);
  verified.set(key, entry);
  if (verified.size > verifiedTransactionsCachedMax) verified.delete(verified.keys().next().value!);
}

