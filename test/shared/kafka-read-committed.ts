/**
 * Kafka's own read_committed rule, as its Java consumer applies it to one fetch answer
 * (CompletedFetch): the aborted transactions in order of first offset; a producer joins the
 * aborted set once a batch reaching an entry's first offset is met, and leaves it at its ABORT
 * marker; a transactional batch of a producer in the set is skipped. Tributary's own readers
 * skip by span (src/protocol/aborted-transactions.ts); a test holds an answer to this rule too,
 * since the gateway hands the index on to Kafka's clients, which follow it.
 */
import { decodeControlBatch } from "../../src/protocol/control-batch.ts";
import type { AbortedTransaction } from "../../src/protocol/aborted-transactions.ts";
import { controlFlag, splitBatches, transactionalFlag } from "../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../src/protocol/record-batch-decode.ts";

/** The offsets of the records a Kafka consumer at read_committed takes from `bytes` (whole batches, as stored). */
export function kafkaReadCommittedOffsets(bytes: Uint8Array, aborted: readonly AbortedTransaction[]): number[] {
  const queue = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
  const abortedProducers = new Set<number>();
  const offsets: number[] = [];
  for (const { header, start, end } of splitBatches(bytes)) {
    const lastOffset = header.baseOffset + header.lastOffsetDelta;
    if (header.producerId >= 0) {
      while (queue.length > 0 && queue[0]!.firstOffset <= lastOffset) abortedProducers.add(queue.shift()!.producerId);
    }
    if ((header.attributes & controlFlag) !== 0) {
      if (decodeControlBatch(bytes.subarray(0, end), start)?.result === "abort") abortedProducers.delete(header.producerId);
      continue;
    }
    if ((header.attributes & transactionalFlag) !== 0 && abortedProducers.has(header.producerId)) continue;
    offsets.push(...decodeRecordBatch(bytes.subarray(0, end), start).records.map((record) => record.offset));
  }
  return offsets;
}
