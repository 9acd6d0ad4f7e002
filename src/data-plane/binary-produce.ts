import { TributaryError } from "../errors.ts";
import { batchBytesMax } from "../limits.ts";
import { producerAppendOf, type ProducerFields } from "../log/producer-state.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";
import { CompressionError } from "../protocol/compression/compression-error.ts";
import { BatchFormatError, compressionMask, controlFlag, splitBatches, stampLogAppendTime, transactionalFlag } from "../protocol/record-batch.ts";
import { recompressBatch } from "../protocol/record-batch-compression.ts";
import { scanRecordBatch, type RecordVisitor } from "../protocol/record-scan.ts";
import { checkRecordSummary, recordRules, type RecordRules } from "../topics/record-rules.ts";
import { collectSchemaIds, fullValidationBytes, type SchemaIdRef } from "../topics/schema-id-refs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { Acks } from "../protocol/schemas.ts";
import { callLeader } from "./leader-calls.ts";

/** The rules for a compressed batch's records: `max.message.bytes` bounds the batch as sent instead (Kafka's rule). */
const compressedRules = new WeakMap<RecordRules, RecordRules>();

function rulesForCompressed(rules: RecordRules): RecordRules {
  let derived = compressedRules.get(rules);
  if (!derived) compressedRules.set(rules, (derived = Object.freeze({ ...rules, maxRecordBytes: Number.POSITIVE_INFINITY })));
  return derived;
}

/** A compressed batch's failure as the API's error: unreadable bytes are CORRUPT_MESSAGE, a bomb MESSAGE_TOO_LARGE. */
function compressionRefusal(where: string, error: CompressionError): TributaryError {
  const code = error.failure === "too-large" ? "MESSAGE_TOO_LARGE" : "CORRUPT_MESSAGE";
  return new TributaryError(code, `${where}: ${error.message}`);
}

/**
 * Client-built record batches, checked as the JSON path checks records: each batch whole
 * (CRC-32C, structure, a compressed batch's records inflated within decompressedBatchBytesMax),
 * no control batches (a transaction's markers are its coordinator's to write), a transactional
 * producer's batches all transactional (`transactional` says so), at most batchBytesMax each, and every record against
 * the topic's rules; a compressed batch's size as sent against `max.message.bytes` instead of
 * each record's (Kafka's rule). An idempotent producer's batches (a producer id other than -1)
 * all carry one producer id and epoch with consecutive sequences (`idempotent` says so; they
 * need acks "all", which the caller checks). A topic whose `compression.type` names a codec
 * gets each batch in it (re-encoded here, at the stateless edge, so the leader only assigns
 * offsets: docs/api.md, Compression). On a LogAppendTime topic each batch is stamped with the
 * append time. On a topic with schema id validation, each validated key and value must be in
 * Confluent's wire format; the ids they name are returned as `schemaRefs`, for checkSchemaIds
 * (src/data-plane/schema-id-checks.ts) before the append. Returns each batch as its own bytes
 * (the body itself when it is one batch), ready to append. Nothing is written here.
 */
export function checkClientBatches(
  body: Uint8Array,
  topic: TopicMetadata,
  nowMs: number,
): { batches: Uint8Array[]; idempotent: boolean; transactional: boolean; schemaRefs: SchemaIdRef[] } {
  const rules = recordRules(topic);
  const schemaRefs: SchemaIdRef[] = [];
  let recordsBefore = 0;
  const batches: Uint8Array[] = [];
  const producers: ProducerFields[] = [];
  let transactionalBatches = 0;
  let fullBytes = 0; // held for full validation (compressed batches' records stay inflated until the check)
  try {
    for (const { header, start, end } of splitBatches(body)) {
      const where = `batch ${batches.length}`;
      const size = end - start;
      if (size > batchBytesMax) {
        // Kafka's answer for a record batch larger than a partition takes (RECORD_LIST_TOO_LARGE is a whole request's).
        throw new TributaryError("MESSAGE_TOO_LARGE", `${where}: ${size} bytes; a batch has at most ${batchBytesMax}`);
      }
      if ((header.attributes & controlFlag) !== 0) {
        throw new TributaryError("INVALID_RECORD", `${where}: a control batch (a transaction marker) is written by the transaction coordinator, not produced`);
      }
      if ((header.attributes & transactionalFlag) !== 0) transactionalBatches++;
      const compressed = (header.attributes & compressionMask) !== 0;
      if (compressed && size > rules.maxRecordBytes) {
        throw new TributaryError("MESSAGE_TOO_LARGE", `${where}: a compressed batch of ${size} bytes exceeds max.message.bytes ${rules.maxRecordBytes}`);
      }
      producers.push(header);
      const recordRulesOfBatch = compressed ? rulesForCompressed(rules) : rules;
      const check: RecordVisitor = (record, index) => checkRecordSummary(record, () => `${where}, record ${index}`, recordRulesOfBatch, nowMs);
      // Validation off: the scan's visitor is the plain check, nothing added per record.
      const validation = rules.schemaValidation;
      const batchIndex = batches.length;
      const first = recordsBefore;
      const visit: RecordVisitor =
        validation === undefined
          ? check
          : (record, index) => {
              check(record, index);
              const key = { bytes: record.bytes, start: record.keyStart, length: record.keyLength };
              const value = { bytes: record.bytes, start: record.valueStart, length: record.valueLength };
              collectSchemaIds(schemaRefs, validation, { recordIndex: first + index, batch: batchIndex, batchRecord: index }, key, value);
            };
      const refsBefore = schemaRefs.length;
      try {
        recordsBefore += scanRecordBatch(body, start, visit).recordCount;
      } catch (error) {
        if (error instanceof CompressionError) throw compressionRefusal(where, error);
        throw error;
      }
      if (validation?.keyFull || validation?.valueFull) fullBytes = fullValidationBytes(schemaRefs, refsBefore, fullBytes);
      // The usual body is one batch: it is taken as it is (the body is this request's own). A
      // batch of several is copied out, since a view would carry the whole body over RPC.
      let batch = start === 0 && end === body.byteLength && body.byteOffset === 0 && body.buffer.byteLength === end ? body : body.slice(start, end);
      if (rules.storedCodec !== undefined) batch = storedAs(batch, rules, where);
      if (rules.logAppendTime) stampLogAppendTime(batch, 0, nowMs);
      batches.push(batch);
    }
  } catch (error) {
    if (error instanceof BatchFormatError) throw new TributaryError("INVALID_RECORD", `not a valid record batch: ${error.message}`);
    throw error;
  }
  if (batches.length === 0) throw new TributaryError("INVALID_REQUEST", "the body holds no record batch");
  const idempotent = producerAppendOf(producers) !== undefined;
  if (transactionalBatches > 0 && (transactionalBatches < batches.length || !idempotent)) {
    throw new TributaryError("INVALID_RECORD", "a transactional producer's batches are all transactional and carry its producer id, epoch and sequences");
  }
  return { batches, idempotent, transactional: transactionalBatches > 0, schemaRefs };
}

/** The batch in the topic's `compression.type` codec, within a stored batch's bound. */
function storedAs(batch: Uint8Array, rules: RecordRules, where: string): Uint8Array {
  let stored: Uint8Array;
  try {
    stored = recompressBatch(batch, rules.storedCodec!);
  } catch (error) {
    if (error instanceof CompressionError) throw compressionRefusal(where, error);
    throw error;
  }
  if (stored.length > batchBytesMax) {
    throw new TributaryError("MESSAGE_TOO_LARGE", `${where}: ${stored.length} bytes as compression.type stores it; a batch has at most ${batchBytesMax}`);
  }
  return stored;
}

/** Appends checked batches to one partition's leader. */
export async function appendBatches(env: Env, topic: TopicMetadata, partition: number, batches: Uint8Array[], acks: Acks): Promise<AppendAnswer> {
  return callLeader(env, topic, partition, (stub, call) => stub.append({ ...call, batches, acks }), { retryUnreachable: false });
}
