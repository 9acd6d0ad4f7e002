/**
 * Records on their way in and out of the client. In: a message as the user writes it (strings
 * or bytes) becomes the codec's RecordInput, checked and copied at `send` time, as Kafka's
 * producer serializes at send. Out: stored batches from a binary fetch become FetchedRecords,
 * keeping only the records a reader may see.
 */
import type { PolledRecord } from "./group-member.ts";
import { TributaryError } from "../errors.ts";
import { decodeBase64 } from "../protocol/base64.ts";
import { isAbortedBatch, type AbortedTransaction } from "../protocol/aborted-transactions.ts";
import { controlFlag, splitBatches, transactionalFlag, type RecordHeader, type RecordInput } from "../protocol/record-batch.ts";
import type { HeaderField, RecordField } from "../protocol/record-batch-builder.ts";
import { decodeBatchRecords, type RecordBuilder } from "../protocol/record-batch-decode.ts";
import type { FetchedRecord, RecordHeaders } from "./types.ts";

export type KeyInput = string | Uint8Array | null;
export type ValueInput = string | Uint8Array | null;
export type HeadersInput = Record<string, string | Uint8Array | null>;

/** One record to produce. Every field but `value` is optional. */
export interface Message {
  key?: KeyInput;
  value: ValueInput;
  headers?: HeadersInput;
  /** A partition of the topic; without it the Kafka default partitioner chooses. */
  partition?: number;
  /** Create time in ms since the epoch; default: now. */
  timestamp?: number;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Framing a record adds beyond its payload, for byte accounting (the batch split counts exactly). */
const recordOverheadBytes = 24;

/** About the bytes a record takes in a batch: what the producer's buffer and the sticky partitioner count. */
export function recordBytes(record: RecordInput): number {
  let bytes = recordOverheadBytes + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const header of record.headers) bytes += header.key.length + (header.value?.length ?? 0);
  return bytes;
}

/** UTF-8 text of bytes (invalid sequences become U+FFFD); null stays null. */
export function textOf(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : utf8Decoder.decode(bytes);
}

function bytesOf(field: string, where: string, input: unknown): Uint8Array | null {
  if (input === null) return null;
  if (typeof input === "string") return utf8Encoder.encode(input);
  // A copy (new Uint8Array(view) copies; a Buffer's slice() would not): the caller may reuse
  // its buffer before the batch is encoded.
  if (input instanceof Uint8Array) return new Uint8Array(input);
  throw new TypeError(`${where}: ${field} must be a string, a Uint8Array or null`);
}

function headersOf(where: string, input: unknown): RecordHeader[] {
  if (input === undefined) return [];
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new TypeError(`${where}: headers must be an object of string values`);
  }
  return Object.entries(input).map(([key, value]) => ({ key, value: bytesOf(`header ${key}`, where, value) }));
}

/** Where a message is, for errors: a number n reads as `messages[n]` (built only when something is refused). */
export type MessagePlace = string | number;

function placeText(where: MessagePlace): string {
  return typeof where === "number" ? `messages[${where}]` : where;
}

/**
 * Checks a message's fields (the TypeErrors `send` and `produce` refuse bad input with) and
 * answers its explicit partition, undefined when the partitioner chooses; nothing is copied.
 */
export function checkMessage(message: Message, where: MessagePlace): number | undefined {
  if (message === null || typeof message !== "object") throw new TypeError(`${placeText(where)}: a message is an object with a value`);
  if (!("value" in message) || message.value === undefined) throw new TypeError(`${placeText(where)}: value is required (null for a tombstone)`);
  const timestamp = message.timestamp ?? 0;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`${placeText(where)}: timestamp must be a non-negative integer of milliseconds`);
  }
  if (!isField(message.key === undefined ? null : message.key)) throw fieldError("key", where);
  if (!isField(message.value)) throw fieldError("value", where);
  const headers = message.headers;
  if (headers !== undefined) {
    if (headers === null || typeof headers !== "object" || Array.isArray(headers)) throw new TypeError(`${placeText(where)}: headers must be an object of string values`);
    for (const [key, value] of Object.entries(headers)) if (!isField(value)) throw fieldError(`header ${key}`, where);
  }
  return partitionOf(message, where);
}

function isField(input: unknown): boolean {
  return input === null || typeof input === "string" || input instanceof Uint8Array;
}

function fieldError(field: string, where: MessagePlace): TypeError {
  return new TypeError(`${placeText(where)}: ${field} must be a string, a Uint8Array or null`);
}

/** A checked message's headers as the batch builder takes them (values as given: strings stay strings). */
export function headerFields(headers: HeadersInput | undefined): HeaderField[] | undefined {
  return headers === undefined ? undefined : Object.entries(headers).map(([key, value]) => ({ key, value }));
}

/**
 * Checked messages from `from` on, with their bytes copied now (strings are immutable and
 * stay as they are), field by field in arrays rather than an object each: what the producer
 * keeps of the messages it cannot write into batches at once, as Kafka serializes at send.
 * Index i of each array is message from + i.
 */
export class CopiedMessages {
  readonly from: number;
  readonly keys: RecordField[];
  readonly values: RecordField[];
  readonly headers: (HeaderField[] | undefined)[];
  readonly timestamps: (number | undefined)[];
  readonly partitions: (number | undefined)[];

  constructor(messages: readonly Message[], from: number) {
    const count = Math.max(0, messages.length - from);
    const copy = (field: RecordField | undefined): RecordField => (field instanceof Uint8Array ? new Uint8Array(field) : (field ?? null));
    this.from = from;
    this.keys = new Array<RecordField>(count);
    this.values = new Array<RecordField>(count);
    this.headers = new Array<HeaderField[] | undefined>(count);
    this.timestamps = new Array<number | undefined>(count);
    this.partitions = new Array<number | undefined>(count);
    for (let at = 0; at < count; at++) {
      const message = messages[from + at]!;
      this.keys[at] = copy(message.key);
      this.values[at] = copy(message.value);
      this.headers[at] = message.headers === undefined ? undefined : headerFields(message.headers)!.map(({ key, value }) => ({ key, value: copy(value) }));
      this.timestamps[at] = message.timestamp ?? undefined;
      this.partitions[at] = message.partition;
    }
  }
}

/** Checks a message's fields and turns it into the codec's record, with `nowMs` as its default timestamp. */
export function toRecordInput(message: Message, nowMs: number, where: string): RecordInput {
  checkMessage(message, where);
  const timestamp = message.timestamp ?? nowMs;
  return {
    key: message.key === undefined ? null : bytesOf("key", where, message.key),
    value: bytesOf("value", where, message.value),
    headers: headersOf(where, message.headers),
    timestamp,
  };
}

/** Checks an explicit partition number; undefined means "let the partitioner choose". */
export function partitionOf(message: Message, where: MessagePlace): number | undefined {
  const partition = message.partition;
  if (partition === undefined) return undefined;
  if (!Number.isSafeInteger(partition) || partition < 0) throw new TypeError(`${placeText(where)}: partition must be an integer >= 0`);
  return partition;
}

/** Builds a headers object that keeps every key as an own property, "__proto__" included. */
export function headersObject(entries: Iterable<readonly [string, string | null]>): RecordHeaders {
  const headers: RecordHeaders = {};
  for (const [key, value] of entries) {
    Object.defineProperty(headers, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}

/**
 * The records of a binary fetch answer a reader may see: offsets from `fromOffset` (the first
 * batch may start before it) and below `untilOffset` (the high watermark, or a read_committed
 * fetch's last stable offset; the last batch may run past it). Control batches (transaction
 * markers) hold no user records and are skipped, as Kafka's consumer does; so are a
 * read_committed fetch's `abortedTransactions` (Kafka's rule, src/protocol/aborted-transactions.ts).
 */
export function decodeFetchedBatches(body: Uint8Array, fromOffset: number, untilOffset: number, abortedTransactions?: readonly AbortedTransaction[]): FetchedRecord[] {
  let records: FetchedRecord[] = [];
  for (const { header, start } of splitBatches(body)) {
    if ((header.attributes & controlFlag) !== 0) continue;
    if ((header.attributes & transactionalFlag) !== 0 && isAbortedBatch(header.producerId, header.baseOffset, abortedTransactions)) continue;
    const decoded = decodeBatchRecords(body, start, fetchedRecord).records;
    const whole = header.baseOffset >= fromOffset && header.baseOffset + header.lastOffsetDelta < untilOffset;
    // The usual case, a whole batch and the first: its array as it is, no copy.
    if (whole && records.length === 0) records = decoded;
    else for (const record of decoded) if (record.offset >= fromOffset && record.offset < untilOffset) records.push(record);
  }
  return records;
}

/** A read's isolation level on the wire (docs/transactions.md). */
export type Isolation = "read_committed" | "read_uncommitted";

/** The read's isolation level on the wire: read_committed unless asked otherwise. */
export function isolationOf(readUncommitted: boolean | undefined): Isolation {
  return readUncommitted === true ? "read_uncommitted" : "read_committed";
}

/** A fetched record in one step from the decoder's fields (no intermediate object). */
const fetchedRecord: RecordBuilder<FetchedRecord> = (offset, timestamp, key, value, headers) => ({
  offset,
  timestamp,
  key,
  value,
  headers: headers.length === 0 ? {} : headersObject(headers.map((entry) => [entry.key, textOf(entry.value)] as const)),
});

/** A record as the consumer hands it to a handler: kafkajs's message, with bytes as Uint8Array. */
export interface ConsumedMessage extends FetchedRecord {
  topic: string;
  partition: number;
}

function base64Field(field: string, value: string | null): Uint8Array | null {
  if (value === null) return null;
  const bytes = decodeBase64(value);
  if (bytes === undefined) throw new TributaryError("UNKNOWN_SERVER_ERROR", `poll answer: ${field} is not base64`);
  return bytes;
}

/** A group poll's record (asked for with encoding base64, so bytes arrive exact). */
export function consumedFromPolled(record: PolledRecord): ConsumedMessage {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    key: base64Field("key", record.key),
    value: base64Field("value", record.value),
    headers: headersObject(Object.entries(record.headers)),
  };
}
