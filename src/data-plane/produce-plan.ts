import { TributaryError } from "../errors.ts";
import { batchBytesMax } from "../limits.ts";
import { incrementSequence } from "../protocol/sequences.ts";
import { decodeBase64 } from "../protocol/base64.ts";
import { partitionForKey, stickyPartition } from "../protocol/partitioner.ts";
import { batchHeaderBytes, encodedRecordSize, encodeRecordBatch, type RecordInput } from "../protocol/record-batch.ts";
import { RecordBatchBuilder, sealBatch, type HeaderField } from "../protocol/record-batch-builder.ts";
import { compressBatch } from "../protocol/record-batch-compression.ts";
import { utf8Length } from "../protocol/utf8.ts";
import type { Encoding, ProduceRecord, ProduceRequest } from "../protocol/schemas.ts";
import { checkRecord, checkRecordSummary, recordRules, type RecordRules } from "../topics/record-rules.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { collectSchemaIds, payloadField, type SchemaIdRef } from "../topics/schema-id-refs.ts";

/** The records of one produce request that go to one partition, as the batches to append. */
export interface PartitionWrite {
  partition: number;
  batches: Uint8Array[];
  /** Index in the request of each record, in batch order (= offset order). */
  recordIndexes: number[];
  /** Each record's timestamp, parallel to recordIndexes. */
  timestamps: number[];
}

/** An idempotent producer's request (API.md, Produce): its id and epoch, and each partition's first sequence. */
export interface IdempotentProduce {
  producerId: number;
  producerEpoch: number;
  sequences: Map<number, number>;
  /** A transactional producer's (its `transactionalId`): the batches carry attributes bit 4. */
  transactional?: true;
}

const utf8 = new TextEncoder();

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}

/**
 * The idempotent producer of a request, checked before anything else (API.md, Produce):
 * `producerId`, `producerEpoch` and `sequences` together, `"acks": "all"`, a `partition` on
 * every record, and one sequence for each partition the records go to (and no other).
 * Undefined for a request without them.
 */
export function idempotenceOf(request: ProduceRequest): IdempotentProduce | undefined {
  const { producerId, producerEpoch, sequences } = request;
  if (request.transactionalId !== undefined && (producerId === undefined || producerEpoch === undefined || sequences === undefined)) {
    throw invalid("a transactional produce request carries producerId, producerEpoch and sequences with its transactionalId");
  }
  if (producerId === undefined && producerEpoch === undefined && sequences === undefined) return undefined;
  if (producerId === undefined || producerEpoch === undefined || sequences === undefined) {
    throw invalid("an idempotent produce request carries producerId, producerEpoch and sequences together");
  }
  if (request.acks !== "all") throw invalid(`an idempotent producer writes with "acks": "all", not ${JSON.stringify(request.acks)}`);
  const unplaced = request.records.findIndex((record) => record.partition === undefined);
  if (unplaced >= 0) throw invalid(`record ${unplaced}: an idempotent producer names the partition of every record`);
  const byPartition = new Map<number, number>();
  for (const [key, sequence] of Object.entries(sequences)) {
    if (!/^(0|[1-9][0-9]{0,8})$/.test(key)) throw invalid(`sequences: ${JSON.stringify(key)} is not a partition number`);
    byPartition.set(Number(key), sequence);
  }
  const written = new Set(request.records.map((record) => record.partition!));
  for (const partition of written) {
    if (!byPartition.has(partition)) throw invalid(`sequences has no sequence for partition ${partition}, which records go to`);
  }
  for (const partition of byPartition.keys()) {
    if (!written.has(partition)) throw invalid(`sequences names partition ${partition}, which no record goes to`);
  }
  return request.transactionalId === undefined ? { producerId, producerEpoch, sequences: byPartition } : { producerId, producerEpoch, sequences: byPartition, transactional: true };
}

function payload(text: string | null | undefined, encoding: Encoding, what: string): Uint8Array | null {
  if (text === null || text === undefined) return null;
  if (encoding === "utf8") return utf8.encode(text);
  const bytes = decodeBase64(text);
  if (!bytes) throw new TributaryError("INVALID_RECORD", `${what} is not valid base64`);
  return bytes;
}

/**
 * Every record's key and value as UTF-8, in request order (key, value, key, value …; null
 * stays null). An ASCII request — the usual one — is encoded in one encoder call, as views
 * of one buffer cut at the strings' lengths: UTF-8 takes at least one byte per UTF-16 unit,
 * and exactly one for all of them only when every character is ASCII. Otherwise one call
 * per string. One call instead of two per record: the allocation and the call into the
 * runtime dominated the JSON produce path.
 */
function utf8Payloads(records: readonly ProduceRecord[]): (Uint8Array | null)[] {
  const texts: (string | null)[] = [];
  for (const record of records) texts.push(record.key ?? null, record.value ?? null);
  const joined = texts.filter((text) => text !== null).join("");
  const bytes = utf8.encode(joined);
  if (bytes.length !== joined.length) return texts.map((text) => (text === null ? null : utf8.encode(text)));
  let at = 0;
  return texts.map((text) => {
    if (text === null) return null;
    const view = bytes.subarray(at, at + text.length);
    at += text.length;
    return view;
  });
}

/** One request record as batch input, checked against the topic's rules (API.md, Produce). */
function toRecordInput(
  record: ProduceRecord,
  index: number,
  encoding: Encoding,
  rules: RecordRules,
  nowMs: number,
  encoded: readonly (Uint8Array | null)[] | undefined,
): RecordInput {
  const where = `record ${index}`;
  const input: RecordInput = {
    key: encoded ? encoded[2 * index]! : payload(record.key, encoding, `${where}: key`),
    value: encoded ? encoded[2 * index + 1]! : payload(record.value, encoding, `${where}: value`),
    headers: (record.headers ?? []).map(([key, value]) => ({ key, value: utf8.encode(value) })),
    // A LogAppendTime topic stamps the append time; otherwise the record's own, or now.
    timestamp: rules.logAppendTime ? nowMs : (record.timestamp ?? nowMs),
  };
  checkRecord(input, where, rules, nowMs);
  return input;
}

function choosePartition(record: ProduceRecord, key: Uint8Array | null, rules: RecordRules, sticky: () => number): number {
  if (record.partition !== undefined) {
    if (record.partition >= rules.partitionCount) {
      throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `partition ${record.partition} does not exist`);
    }
    return record.partition;
  }
  if (key !== null) return partitionForKey(key, rules.partitionCount);
  return sticky();
}

/** An idempotent producer's fields for a partition's batches: the first batch's sequence. */
interface BatchProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  transactional?: boolean;
}

/**
 * Splits one partition's records into batches of at most batchBytesMax each, in order. An
 * idempotent producer's batches carry consecutive sequences (wrapping after 2^31 − 1).
 */
function encodeBatches(records: readonly RecordInput[], logAppendTime: boolean, producer: BatchProducer | undefined): Uint8Array[] {
  const batches: Uint8Array[] = [];
  let sequence = producer?.baseSequence ?? -1;
  const encode = (slice: RecordInput[]) => {
    batches.push(encodeRecordBatch(slice, producer ? { logAppendTime, ...producer, baseSequence: sequence } : { logAppendTime }));
    if (producer) sequence = incrementSequence(sequence, slice.length);
  };
  let start = 0;
  let bytes = batchHeaderBytes;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const size = encodedRecordSize(record, record.timestamp - records[start]!.timestamp, index - start);
    if (index > start && bytes + size > batchBytesMax) {
      encode(records.slice(start, index));
      start = index;
      bytes = batchHeaderBytes + encodedRecordSize(record, 0, 0);
    } else {
      bytes += size;
    }
  }
  encode(records.slice(start));
  return batches;
}

/**
 * Validates a whole produce request and turns it into one write per partition, before
 * anything is written: one bad record fails the request (API.md). Records keep their
 * request order within a partition. On a topic with schema id validation, each validated key
 * and value must be in Confluent's wire format, and the schema ids they name are added to
 * `schemaRefs` for checkSchemaIds (src/data-plane/schema-id-checks.ts).
 */
export function planProduce(
  records: readonly ProduceRecord[],
  encoding: Encoding,
  topic: TopicMetadata,
  nowMs: number,
  idempotence?: IdempotentProduce,
  schemaRefs: SchemaIdRef[] = [],
): PartitionWrite[] {
  const rules = recordRules(topic);
  // Schema id validation reads each key and value as bytes: the general path, which has them.
  const text = encoding === "utf8" && !rules.logAppendTime && rules.schemaValidation === undefined;
  const writes = text ? planText(records, rules, nowMs, idempotence) : planRecords(records, encoding, rules, nowMs, idempotence, schemaRefs);
  // A topic whose compression.type names a codec stores JSON-produced batches in it too (issue 27).
  const codec = rules.storedCodec;
  if (codec !== undefined && codec !== "none") for (const write of writes) write.batches = write.batches.map((batch) => compressBatch(batch, codec));
  return writes;
}

/** planProduce's general path: any encoding, any timestamp type, a record object each. */
function planRecords(
  records: readonly ProduceRecord[],
  encoding: Encoding,
  rules: RecordRules,
  nowMs: number,
  idempotence: IdempotentProduce | undefined,
  schemaRefs: SchemaIdRef[],
): PartitionWrite[] {
  const validation = rules.schemaValidation;
  let stickyChoice: number | undefined;
  const sticky = () => (stickyChoice ??= stickyPartition(rules.partitionCount));
  const byPartition = new Map<number, { inputs: RecordInput[]; indexes: number[] }>();
  const encoded = encoding === "utf8" ? utf8Payloads(records) : undefined;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const input = toRecordInput(record, index, encoding, rules, nowMs, encoded);
    if (validation !== undefined) collectSchemaIds(schemaRefs, validation, { recordIndex: index }, payloadField(input.key), payloadField(input.value));
    const partition = choosePartition(record, input.key, rules, sticky);
    let group = byPartition.get(partition);
    if (!group) byPartition.set(partition, (group = { inputs: [], indexes: [] }));
    group.inputs.push(input);
    group.indexes.push(index);
  }
  return [...byPartition].map(([partition, group]) => ({
    partition,
    batches: encodeBatches(
      group.inputs,
      rules.logAppendTime,
      idempotence && { producerId: idempotence.producerId, producerEpoch: idempotence.producerEpoch, baseSequence: idempotence.sequences.get(partition)!, transactional: idempotence.transactional === true },
    ),
    recordIndexes: group.indexes,
    timestamps: group.inputs.map((input) => input.timestamp),
  }));
}

/** One partition's records in a text request: its open batch, the batches already full (unsealed), and where each record came from. */
interface TextGroup {
  builder: RecordBatchBuilder;
  full: { bytes: Uint8Array; count: number }[];
  indexes: number[];
  timestamps: number[];
}

/**
 * A batch buffer's first size: a guess at records of a few hundred bytes, which the builder
 * grows past by doubling. A guess, not a sum over the records: that loop cost more than the
 * copies it saved (profiled under workerd).
 */
function textCapacity(recordCount: number): number {
  return Math.min(recordCount * 256, batchBytesMax);
}

/** The builder's batch as a buffer of its own: it crosses to the partition object whole. */
function finishedBatch(builder: RecordBatchBuilder): { bytes: Uint8Array; count: number } {
  const finished = builder.finish();
  return { bytes: finished.byteLength === finished.buffer.byteLength ? finished : finished.slice(), count: builder.count };
}

/**
 * planProduce for the usual request — UTF-8 text on a CreateTime topic — written straight
 * into each partition's batches as the client builds them (RecordBatchBuilder): no Uint8Array
 * per key or value and no record object, which the general path's copies cost on the JSON
 * produce hot path. The same batches, checks, errors and their order as the general path
 * (test/unit/data-plane/produce-plan.test.ts compares them).
 */
function planText(records: readonly ProduceRecord[], rules: RecordRules, nowMs: number, idempotence: IdempotentProduce | undefined): PartitionWrite[] {
  let stickyChoice: number | undefined;
  const capacity = textCapacity(records.length);
  const groups = new Map<number, TextGroup>();
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const key = record.key ?? null;
    const value = record.value ?? null;
    const keyLength = key === null ? -1 : utf8Length(key);
    const valueLength = value === null ? -1 : utf8Length(value);
    let payloadBytes = Math.max(keyLength, 0) + Math.max(valueLength, 0);
    let headers: HeaderField[] | undefined;
    if (record.headers !== undefined) {
      headers = record.headers.map(([name, text]) => ({ key: name, value: text }));
      for (const [name, text] of record.headers) payloadBytes += utf8Length(name) + utf8Length(text);
    }
    const timestamp = record.timestamp ?? nowMs;
    checkRecordSummary({ keyIsNull: key === null, payloadBytes, headerCount: headers?.length ?? 0, timestamp }, () => `record ${index}`, rules, nowMs);
    let partition: number;
    if (record.partition !== undefined) {
      if (record.partition >= rules.partitionCount) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `partition ${record.partition} does not exist`);
      partition = record.partition;
    } else if (key !== null) {
      // One partition takes every key: no need to hash it.
      partition = rules.partitionCount === 1 ? 0 : partitionForKey(utf8.encode(key), rules.partitionCount);
    } else {
      partition = stickyChoice ??= stickyPartition(rules.partitionCount);
    }
    let group = groups.get(partition);
    if (!group) groups.set(partition, (group = { builder: new RecordBatchBuilder(capacity), full: [], indexes: [], timestamps: [] }));
    const fields = { key, keyLength, value, valueLength, headers, timestamp };
    if (!group.builder.tryAppend(fields, batchBytesMax)) {
      group.full.push(finishedBatch(group.builder));
      group.builder = new RecordBatchBuilder(capacity);
      group.builder.tryAppend(fields, batchBytesMax);
    }
    group.indexes.push(index);
    group.timestamps.push(timestamp);
  }
  return [...groups].map(([partition, group]) => {
    let sequence = idempotence?.sequences.get(partition) ?? -1;
    const batches = [...group.full, finishedBatch(group.builder)].map(({ bytes, count }) => {
      sealBatch(bytes, idempotence && { producerId: idempotence.producerId, producerEpoch: idempotence.producerEpoch, baseSequence: sequence, transactional: idempotence.transactional === true });
      if (idempotence) sequence = incrementSequence(sequence, count);
      return bytes;
    });
    return { partition, batches, recordIndexes: group.indexes, timestamps: group.timestamps };
  });
}
