/**
 * The aborted-transactions index as a fetch carries it (Kafka's FetchResponse field; the binary
 * fetch's `Tributary-Aborted-Transactions`, docs/api.md) and Kafka's read_committed rule over
 * it. One place for the partition's reads (src/log/fetched-records.ts) and the client's
 * decoding of a binary fetch (src/client/records.ts).
 */
import { controlFlag, readBatchHeader } from "./record-batch.ts";

export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
  /** The offset of the ABORT marker that closed it. */
  lastOffset: number;
}

/** Whether a producer's transactional batch at `baseOffset` belongs to an aborted transaction (Kafka's read_committed rule). */
export function isAbortedBatch(producerId: number, baseOffset: number, aborted: readonly AbortedTransaction[] | undefined): boolean {
  if (!aborted) return false;
  for (const transaction of aborted) {
    if (transaction.producerId === producerId && transaction.firstOffset <= baseOffset && baseOffset <= transaction.lastOffset) return true;
  }
  return false;
}

/**
 * The entries of `aborted` a read's `batches` (ending before `end`) may carry. Compaction
 * removes an ABORT marker with the last of its transaction's records (src/log/compaction.ts),
 * but the index keeps its entry; Kafka's clients skip a producer's batches from an entry's
 * first offset until they meet its marker, so an entry whose marker falls inside the read and
 * is not there would hide that producer's later transactions. Such an entry names no record
 * left to skip: it is left out. Entries whose marker lies at or past `end` stay.
 */
export function withMarkersPresent(aborted: readonly AbortedTransaction[], batches: readonly Uint8Array[], end: number): AbortedTransaction[] {
  if (!aborted.some((transaction) => transaction.lastOffset < end)) return [...aborted];
  const markers = new Set<string>();
  for (const batch of batches) {
    const header = readBatchHeader(batch, 0);
    if ((header.attributes & controlFlag) !== 0) markers.add(`${header.producerId}:${header.baseOffset}`);
  }
  return aborted.filter((transaction) => transaction.lastOffset >= end || markers.has(`${transaction.producerId}:${transaction.lastOffset}`));
}

const isOffset = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The header's JSON read back: undefined when it is not `[{producerId, firstOffset, lastOffset}]`. */
export function parseAbortedTransactions(text: string): AbortedTransaction[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const entries: AbortedTransaction[] = [];
  for (const entry of parsed as Partial<AbortedTransaction>[]) {
    if (entry === null || typeof entry !== "object" || !isOffset(entry.producerId) || !isOffset(entry.firstOffset) || !isOffset(entry.lastOffset)) return undefined;
    entries.push({ producerId: entry.producerId, firstOffset: entry.firstOffset, lastOffset: entry.lastOffset });
  }
  return entries;
}
