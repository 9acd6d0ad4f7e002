import { TributaryError } from "../errors.ts";
import type { CompressionCodec } from "../protocol/compression/codecs.ts";
import type { RecordInput } from "../protocol/record-batch.ts";
import { recordPayloadBytes, type RecordSummary } from "../protocol/record-scan.ts";
import { subjectStrategyOf, type SubjectNameStrategy } from "../registry/wire-format.ts";
import { configNumber, effectiveTopicConfigs } from "./topic-configs.ts";
import type { TopicMetadata } from "./topic-metadata.ts";

/** What a topic's configs ask of every record produced to it. */
export interface RecordRules {
  partitionCount: number;
  maxRecordBytes: number;
  compacted: boolean;
  logAppendTime: boolean;
  beforeMaxMs: number;
  afterMaxMs: number;
  /** `compression.type`: the codec batches are stored in, or undefined for `producer` (as sent). */
  storedCodec: CompressionCodec | undefined;
  /**
   * `confluent.key/value.schema.validation` (issue 30): each validated side's subject name
   * strategy; undefined when neither is on, so a topic without validation pays one check per
   * request (docs/schema-registry.md, "Records checked before they are written").
   */
  schemaValidation: SchemaValidationRules | undefined;
}

/** Which of a record's key and value must name a registered schema, and the strategy giving its subject. */
export interface SchemaValidationRules {
  key: SubjectNameStrategy | undefined;
  value: SubjectNameStrategy | undefined;
  /** `tributary.key/value.schema.validation=full`: the side's data is also decoded against its schema. */
  keyFull?: true;
  valueFull?: true;
}

/**
 * Derived once per metadata object: the router's cache keeps one for seconds and every
 * produce request asks (a WeakMap, so the rules go with the metadata).
 */
const derived = new WeakMap<TopicMetadata, RecordRules>();

export function recordRules(topic: TopicMetadata): RecordRules {
  let rules = derived.get(topic);
  if (!rules) {
    rules = Object.freeze(deriveRecordRules(topic));
    derived.set(topic, rules);
  }
  return rules;
}

function deriveRecordRules(topic: TopicMetadata): RecordRules {
  const configs = effectiveTopicConfigs(topic.configs);
  return {
    partitionCount: topic.partitions.length,
    maxRecordBytes: configNumber(configs, "max.message.bytes"),
    compacted: configs["cleanup.policy"].includes("compact"),
    logAppendTime: configs["message.timestamp.type"] === "LogAppendTime",
    beforeMaxMs: configNumber(configs, "message.timestamp.before.max.ms"),
    afterMaxMs: configNumber(configs, "message.timestamp.after.max.ms"),
    storedCodec: storedCodecOf(configs["compression.type"]),
    schemaValidation: schemaValidationOf(configs),
  };
}

function schemaValidationOf(configs: ReturnType<typeof effectiveTopicConfigs>): SchemaValidationRules | undefined {
  // Full validation checks the id first: it turns the side's id validation on with it.
  const keyFull = configs["tributary.key.schema.validation"] === "full";
  const valueFull = configs["tributary.value.schema.validation"] === "full";
  const key = keyFull || configs["confluent.key.schema.validation"] === "true" ? subjectStrategyOf(configs["confluent.key.subject.name.strategy"]) : undefined;
  const value = valueFull || configs["confluent.value.schema.validation"] === "true" ? subjectStrategyOf(configs["confluent.value.subject.name.strategy"]) : undefined;
  if (key === undefined && value === undefined) return undefined;
  return { key, value, ...(keyFull ? { keyFull: true } : {}), ...(valueFull ? { valueFull: true } : {}) };
}

/** The codec a `compression.type` value stores batches in: undefined for `producer`. */
export function storedCodecOf(compressionType: string): CompressionCodec | undefined {
  if (compressionType === "producer") return undefined;
  return compressionType === "uncompressed" ? "none" : (compressionType as CompressionCodec);
}

/**
 * Checks one record against the topic's rules (API.md, Produce): its size, a key on a
 * compacted topic, the header count, and — for CreateTime topics — its timestamp against
 * the message.timestamp.before/after.max.ms window around `nowMs`.
 */
export function checkRecord(record: RecordInput, where: string, rules: RecordRules, nowMs: number): void {
  const summary = { keyIsNull: record.key === null, payloadBytes: recordPayloadBytes(record), headerCount: record.headers.length, timestamp: record.timestamp };
  checkRecordSummary(summary, where, rules, nowMs);
}

/**
 * checkRecord on what a scan of a stored batch tells of a record (the binary path: no record
 * built). `where` names the record in an error; a function, so the hot path builds no string.
 */
export function checkRecordSummary(record: RecordSummary, where: string | (() => string), rules: RecordRules, nowMs: number): void {
  try {
    checkSummary(record, rules, nowMs);
  } catch (error) {
    if (!(error instanceof TributaryError)) throw error;
    const place = typeof where === "string" ? where : where();
    throw new TributaryError(error.code, `${place}: ${error.message}`, error.data);
  }
}

function checkSummary(record: RecordSummary, rules: RecordRules, nowMs: number): void {
  if (record.payloadBytes > rules.maxRecordBytes) {
    throw new TributaryError("MESSAGE_TOO_LARGE", `${record.payloadBytes} bytes exceeds max.message.bytes ${rules.maxRecordBytes}`);
  }
  if (rules.compacted && record.keyIsNull) {
    throw new TributaryError("INVALID_RECORD", "a compacted topic needs a key on every record");
  }
  if (rules.logAppendTime) return;
  const timestamp = record.timestamp;
  if (timestamp < 0 || !Number.isSafeInteger(timestamp)) {
    throw new TributaryError("INVALID_TIMESTAMP", "a timestamp is a non-negative integer of milliseconds");
  }
  if (nowMs - timestamp > rules.beforeMaxMs || timestamp - nowMs > rules.afterMaxMs) {
    throw new TributaryError(
      "INVALID_TIMESTAMP",
      `timestamp ${timestamp} is outside the topic's message.timestamp.before.max.ms/after.max.ms window`,
    );
  }
}
