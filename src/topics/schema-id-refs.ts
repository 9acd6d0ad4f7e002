import { TributaryError } from "../errors.ts";
import { schemaFullValidationBytesMax } from "../limits.ts";
import { protobufMessagePath, strategyNeedsRecordName, wireHeaderBytes, wireSchemaId, type SubjectNameStrategy } from "../registry/wire-format.ts";
import type { SchemaValidationRules } from "./record-rules.ts";

/**
 * The first half of schema id validation (docs/schema-registry.md, "Records checked before they
 * are written"), done where a produce's records are read anyway: each validated key and value
 * must be in Confluent's wire format (src/registry/wire-format.ts), else the request is refused
 * here; the schema ids they name are collected for the second half, which asks the registry
 * (src/data-plane/schema-id-checks.ts). A null key or value passes (tombstones, as Confluent Server).
 */

/** A key or value's schema id, and which record it came from. */
export interface SchemaIdRef {
  /** The record's index in the request: JSON produce's, or counted over a binary body's batches. */
  recordIndex: number;
  /** A binary body's batch and the record's index in it (how its other errors name a record). */
  batch?: number;
  batchRecord?: number;
  isKey: boolean;
  schemaId: number;
  strategy: SubjectNameStrategy;
  /** With full validation (`tributary.*.schema.validation=full`): the key or value, whose data after the header is decoded against the schema. */
  payload?: PayloadField;
  /** With a strategy that needs a record name: the Protobuf message indexes after the header ("0", "0.1"…), read whatever the schema's type (only a PROTOBUF schema's check uses them). */
  messagePath?: string;
}

/** Where a record is, as the produce path's errors name it. */
export function recordPlace(ref: Pick<SchemaIdRef, "recordIndex" | "batch" | "batchRecord">): string {
  return ref.batch === undefined ? `record ${ref.recordIndex}` : `batch ${ref.batch}, record ${ref.batchRecord}`;
}

/** A record refused by schema id validation: 400 INVALID_RECORD naming it, with its index as `recordIndex`. */
export function schemaRefusal(ref: Pick<SchemaIdRef, "recordIndex" | "batch" | "batchRecord" | "isKey">, why: string): TributaryError {
  return new TributaryError("INVALID_RECORD", `${recordPlace(ref)}: ${ref.isKey ? "key" : "value"} ${why}`, { recordIndex: ref.recordIndex });
}

/** Where a record is, for collectSchemaIds. */
export interface RecordPosition {
  recordIndex: number;
  batch?: number;
  batchRecord?: number;
}

function collectOne(
  refs: SchemaIdRef[],
  position: RecordPosition,
  isKey: boolean,
  strategy: SubjectNameStrategy,
  full: boolean,
  field: PayloadField,
): void {
  const { bytes, start, length } = field;
  if (length < 0) return; // null: a tombstone (or a keyless record) passes, as in Confluent Server
  const id = wireSchemaId(bytes, start, length);
  const ref: SchemaIdRef = { ...position, isKey, schemaId: 0, strategy };
  if (typeof id === "string") throw schemaRefusal(ref, id);
  ref.schemaId = id;
  if (full) ref.payload = field;
  if (strategyNeedsRecordName(strategy)) {
    const path = protobufMessagePath(bytes, start + wireHeaderBytes, start + length);
    if (path !== undefined) ref.messagePath = path;
  }
  refs.push(ref);
}

/** A key or value: `length` bytes of `bytes` from `start`; a length of -1 is null. */
export interface PayloadField {
  bytes: Uint8Array;
  start: number;
  length: number;
}

/** A key or value given as its own bytes (JSON produce's records). */
export function payloadField(bytes: Uint8Array | null): PayloadField {
  return bytes === null ? { bytes: new Uint8Array(0), start: 0, length: -1 } : { bytes, start: 0, length: bytes.byteLength };
}

/**
 * Checks a record's validated key and value for the wire format and adds the ids they name to
 * `refs`; throws INVALID_RECORD otherwise.
 */
export function collectSchemaIds(refs: SchemaIdRef[], validation: SchemaValidationRules, position: RecordPosition, key: PayloadField, value: PayloadField): void {
  if (validation.key !== undefined) collectOne(refs, position, true, validation.key, validation.keyFull === true, key);
  if (validation.value !== undefined) collectOne(refs, position, false, validation.value, validation.valueFull === true, value);
}

/**
 * The bytes of keys and values full validation holds for a request (`before`, plus those of the refs
 * added from `from`): past schemaFullValidationBytesMax the request is refused, 413
 * RECORD_LIST_TOO_LARGE, before more is inflated.
 */
export function fullValidationBytes(refs: readonly SchemaIdRef[], from: number, before: number): number {
  let total = before;
  for (let index = from; index < refs.length; index++) total += refs[index]!.payload?.length ?? 0;
  if (total > schemaFullValidationBytesMax) {
    throw new TributaryError(
      "RECORD_LIST_TOO_LARGE",
      `full schema validation holds at most ${schemaFullValidationBytesMax} bytes of keys and values per request (limits.ts, schemaFullValidationBytesMax): send fewer records per request`,
    );
  }
  return total;
}
