/**
 * A transactional Produce's batches rewritten to the producer identity the server knows
 * (producer-mapping.ts): producer id, epoch and base sequence lie inside the batch's CRC, so
 * the CRC is computed again — only for a batch whose CRC held as the client sent it, so a
 * corrupt batch still reaches the partition corrupt and is refused there (CORRUPT_MESSAGE).
 * Batches of another identity, and bytes that do not read as batches, are left as they are for
 * the partition to judge.
 */
import { batchHeaderBytes, splitBatches, verifyBatchCrc, writeBatchCrc, writeProducerFields } from "../../protocol/record-batch.ts";
import { serverSequence, translates, type ProducerMapping } from "./producer-mapping.ts";

/** Rewrites, in place, the batches of `records` (one partition's, `partitionKey`) that carry the mapping's client identity. */
export function rewriteBatchIdentity(records: Uint8Array, mapping: ProducerMapping, partitionKey: string): void {
  if (!translates(mapping)) return;
  let batches: { header: { producerId: number; producerEpoch: number; baseSequence: number }; start: number; end: number }[];
  try {
    batches = [...splitBatches(records)];
  } catch {
    return;
  }
  for (const { header, start, end } of batches) {
    if (header.producerId !== mapping.client.producerId || header.producerEpoch !== mapping.client.producerEpoch) continue;
    if (!verifyBatchCrc(records, start)) continue;
    const sequence = serverSequence(mapping, partitionKey, header.baseSequence);
    writeProducerFields(new DataView(records.buffer, records.byteOffset + start, batchHeaderBytes), mapping.server.producerId, mapping.server.producerEpoch, sequence);
    writeBatchCrc(records.subarray(start, end));
  }
}
