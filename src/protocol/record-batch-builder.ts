/**
 * A RecordBatch v2 (the format drawn in record-batch.ts) built one record at a time, straight
 * into one growing buffer: what a producer does at `send`, as Kafka's RecordAccumulator
 * appends each record to its partition's open batch. Keys, values and header values are
 * strings (written as UTF-8) or bytes (copied), so a record costs no object and no Uint8Array
 * of its own on the way in.
 *
 *   builder.tryAppend(record, limit) … ──► finish(): header written, producer fields −1
 *     ──► sealBatch(batch, identity?): producer fields, then the CRC-32C (once, before the first send)
 *
 * encodeRecordBatch (record-batch.ts) remains the encoder of a known list of records; both
 * write the same header (writeBatchHeader), and test/unit/protocol/record-batch-builder.test.ts
 * checks that they produce the same bytes.
 */
import { attributesAt, batchHeaderBytes, transactionalFlag, writeBatchCrc, writeBatchHeader, writeProducerFields } from "./record-batch.ts";
import { utf8Length, writeUtf8 } from "./utf8.ts";
import { varintSize, varlongSize, writeVarint, writeVarlong } from "./varint.ts";

/** A key, value or header value: UTF-8 text, bytes, or null. */
export type RecordField = string | Uint8Array | null;

export interface HeaderField {
  key: string;
  value: RecordField;
}

/** A record as the builder takes it; `keyLength`/`valueLength` are fieldLength's answers for its key and value. */
export interface RecordFields {
  key: RecordField;
  keyLength: number;
  value: RecordField;
  valueLength: number;
  headers: readonly HeaderField[] | undefined;
  timestamp: number;
}

/** What a producer's identity puts in each batch header (Kafka's idempotent producer). */
export interface BatchProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** A transactional producer's batch: attributes bit 4 (docs/transactions.md). */
  transactional?: boolean;
}

/** Bytes of a field on the wire, without its length varint; −1 for null. */
export function fieldLength(field: RecordField): number {
  return field === null ? -1 : typeof field === "string" ? utf8Length(field) : field.length;
}

function fieldSize(length: number): number {
  return length < 0 ? 1 : varintSize(length) + length;
}

function writeField(bytes: Uint8Array, at: number, field: RecordField, length: number): number {
  if (field === null) {
    bytes[at] = 1; // varint −1: null
    return at + 1;
  }
  const position = writeVarint(bytes, at, length);
  if (typeof field === "string") writeUtf8(bytes, position, field, length);
  else if (length <= 32) for (let i = 0; i < length; i++) bytes[position + i] = field[i]!;
  else bytes.set(field, position);
  return position + length;
}

export class RecordBatchBuilder {
  #bytes: Uint8Array;
  #position = batchHeaderBytes;
  #count = 0;
  #baseTimestamp = 0;
  #maxTimestamp = 0;

  /** `capacity`: the bytes to start with; the buffer doubles as records come. */
  constructor(capacity = 16 * 1024) {
    this.#bytes = new Uint8Array(Math.max(capacity, batchHeaderBytes * 2));
  }

  get count(): number {
    return this.#count;
  }

  /** Bytes of the batch so far, header included. */
  get byteLength(): number {
    return this.#position;
  }

  /**
   * Appends the record unless the batch would then pass `limit` bytes; a first record is
   * always taken (one larger record goes alone). Answers whether it was appended.
   */
  tryAppend(record: RecordFields, limit: number): boolean {
    const index = this.#count;
    const timestampDelta = index === 0 ? 0 : record.timestamp - this.#baseTimestamp;
    const headers = record.headers;
    let body = 1 + varlongSize(timestampDelta) + varintSize(index) + fieldSize(record.keyLength) + fieldSize(record.valueLength);
    const headerCount = headers === undefined ? 0 : headers.length;
    body += varintSize(headerCount);
    for (let i = 0; i < headerCount; i++) {
      const header = headers![i]!;
      const keyLength = utf8Length(header.key);
      body += varintSize(keyLength) + keyLength + fieldSize(fieldLength(header.value));
    }
    const size = varintSize(body) + body;
    if (index > 0 && this.#position + size > limit) return false;
    if (index === 0) this.#baseTimestamp = this.#maxTimestamp = record.timestamp;
    else if (record.timestamp > this.#maxTimestamp) this.#maxTimestamp = record.timestamp;
    this.#reserve(size);
    const bytes = this.#bytes;
    let position = writeVarint(bytes, this.#position, body);
    bytes[position++] = 0; // record attributes
    position = writeVarlong(bytes, position, timestampDelta);
    position = writeVarint(bytes, position, index);
    position = writeField(bytes, position, record.key, record.keyLength);
    position = writeField(bytes, position, record.value, record.valueLength);
    position = writeVarint(bytes, position, headerCount);
    for (let i = 0; i < headerCount; i++) {
      const header = headers![i]!;
      const keyLength = utf8Length(header.key);
      position = writeVarint(bytes, position, keyLength);
      writeUtf8(bytes, position, header.key, keyLength);
      position = writeField(bytes, position + keyLength, header.value, fieldLength(header.value));
    }
    if (position !== this.#position + size) throw new Error(`record batch builder: wrote ${position - this.#position} bytes, sized ${size}`);
    this.#position = position;
    this.#count = index + 1;
    return true;
  }

  /** The batch, its header written but for the producer fields (−1) and the CRC: sealBatch adds them. */
  finish(): Uint8Array {
    if (this.#count === 0) throw new RangeError("a record batch holds at least one record");
    const bytes = this.#bytes.subarray(0, this.#position);
    writeBatchHeader(bytes, {
      size: this.#position,
      baseOffset: 0,
      partitionLeaderEpoch: -1,
      attributes: 0,
      count: this.#count,
      baseTimestamp: this.#baseTimestamp,
      maxTimestamp: this.#maxTimestamp,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
    });
    return bytes;
  }

  #reserve(size: number): void {
    const needed = this.#position + size;
    if (needed <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
    grown.set(this.#bytes.subarray(0, this.#position));
    this.#bytes = grown;
  }
}

/** Writes a finished batch's producer fields (when it has an identity) and then its CRC-32C. */
export function sealBatch(batch: Uint8Array, producer?: BatchProducer): void {
  if (producer) writeProducerFields(new DataView(batch.buffer, batch.byteOffset, batchHeaderBytes), producer.producerId, producer.producerEpoch, producer.baseSequence);
  if (producer?.transactional) {
    const view = new DataView(batch.buffer, batch.byteOffset, batchHeaderBytes);
    view.setInt16(attributesAt, view.getInt16(attributesAt) | transactionalFlag);
  }
  writeBatchCrc(batch);
}
