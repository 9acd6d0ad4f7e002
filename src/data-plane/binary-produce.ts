import { TributaryError } from "../errors.ts";
import { batchBytesMax } from "../limits.ts";
import { producerAppendOf, type ProducerFields } from "../log/producer-state.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";
import {
  BatchFormatError,
  compressionMask,
  controlFlag,
  splitBatches,
  stampLogAppendTime,
  transactionalFlag,
} from "../protocol/record-batch.ts";
import { scanRecordBatch } from "../protocol/record-scan.ts";
import { checkRecordSummary, recordRules } from "../topics/record-rules.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { Acks } from "../protocol/schemas.ts";
import { callLeader } from "./leader-calls.ts";

/**
 * Client-built record batches, checked as the JSON path checks records: each batch whole
 * (CRC-32C, structure), no compression or transactional/control batches yet, at most
 * batchBytesMax each, and every record against the topic's rules. An idempotent producer's
 * batches (a producer id other than -1) all carry one producer id and epoch with consecutive
 * sequences (`idempotent` says so; they need acks "all", which the caller checks). On a
 * LogAppendTime topic each batch is stamped with the append time. Returns each batch as its
 * own bytes (the body itself when it is one batch), ready to append. Nothing is written here.
 */
export function checkClientBatches(body: Uint8Array, topic: TopicMetadata, nowMs: number): { batches: Uint8Array[]; idempotent: boolean } {
  const rules = recordRules(topic);
  const batches: Uint8Array[] = [];
  const producers: ProducerFields[] = [];
  try {
    for (const { header, start, end } of splitBatches(body)) {
      const where = `batch ${batches.length}`;
      if (end - start > batchBytesMax) {
        throw new TributaryError("RECORD_LIST_TOO_LARGE", `${where}: ${end - start} bytes; a batch has at most ${batchBytesMax}`);
      }
      if ((header.attributes & (compressionMask | transactionalFlag | controlFlag)) !== 0) {
        throw new TributaryError("INVALID_RECORD", `${where}: compressed, transactional and control batches are not supported yet`);
      }
      producers.push(header);
      scanRecordBatch(body, start, (record, index) => checkRecordSummary(record, () => `${where}, record ${index}`, rules, nowMs));
      // The usual body is one batch: it is taken as it is (the body is this request's own). A
      // batch of several is copied out, since a view would carry the whole body over RPC.
      const batch = start === 0 && end === body.byteLength && body.byteOffset === 0 && body.buffer.byteLength === end ? body : body.slice(start, end);
      if (rules.logAppendTime) stampLogAppendTime(batch, 0, nowMs);
      batches.push(batch);
    }
  } catch (error) {
    if (error instanceof BatchFormatError) throw new TributaryError("INVALID_RECORD", `not a valid record batch: ${error.message}`);
    throw error;
  }
  if (batches.length === 0) throw new TributaryError("INVALID_REQUEST", "the body holds no record batch");
  return { batches, idempotent: producerAppendOf(producers) !== undefined };
}

/** Appends checked batches to one partition's leader. */
export async function appendBatches(env: Env, topic: TopicMetadata, partition: number, batches: Uint8Array[], acks: Acks): Promise<AppendAnswer> {
  return callLeader(env, topic, partition, (stub, call) => stub.append({ ...call, batches, acks }), { retryUnreachable: false });
}
