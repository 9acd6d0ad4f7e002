import { TributaryError } from "../errors.ts";
import { batchBytesMax } from "../limits.ts";
import { incrementSequence } from "../log/producer-state.ts";
import { decodeBase64 } from "../protocol/base64.ts";
import { partitionForKey, stickyPartition } from "../protocol/partitioner.ts";
import { batchHeaderBytes, encodedRecordSize, encodeRecordBatch, type RecordInput } from "../protocol/record-batch.ts";
import type { Encoding, ProduceRecord, ProduceRequest } from "../protocol/schemas.ts";
import { checkRecord, recordRules, type RecordRules } from "../topics/record-rules.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

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
  return { producerId, producerEpoch, sequences: byPartition };
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
 * request order within a partition.
 */
export function planProduce(
  records: readonly ProduceRecord[],
  encoding: Encoding,
  topic: TopicMetadata,
  nowMs: number,
  idempotence?: IdempotentProduce,
): PartitionWrite[] {
  const rules = recordRules(topic);
  let stickyChoice: number | undefined;
  const sticky = () => (stickyChoice ??= stickyPartition(rules.partitionCount));
  const byPartition = new Map<number, { inputs: RecordInput[]; indexes: number[] }>();
  const encoded = encoding === "utf8" ? utf8Payloads(records) : undefined;
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const input = toRecordInput(record, index, encoding, rules, nowMs, encoded);
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
      idempotence && { producerId: idempotence.producerId, producerEpoch: idempotence.producerEpoch, baseSequence: idempotence.sequences.get(partition)! },
    ),
    recordIndexes: group.indexes,
    timestamps: group.inputs.map((input) => input.timestamp),
  }));
}
