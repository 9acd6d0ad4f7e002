import { readAvroDatum } from "./avro-datum.ts";
import { DatumError } from "./datum-error.ts";
import { validateJson } from "./json-schema-validate.ts";
import { readProtobufDatum } from "./protobuf/proto-datum.ts";
import type { ParsedSchema } from "./schema-types.ts";

/**
 * A key's or value's data (what follows Confluent's 5-byte header) read by its schema: checked,
 * for `tributary.*.schema.validation=full`, or decoded, for `decode=schema`
 * (docs/schema-registry.md). Avro binary by the datum reader; JSON text parsed, and checked
 * against the JSON Schema when checking (decoding shows the JSON as it is); Protobuf's message
 * indexes and binary by src/registry/protobuf/proto-datum.ts. Pure.
 */

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }); // a leading BOM is not part of the JSON text

function jsonOf(bytes: Uint8Array, start: number, end: number): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes.subarray(start, end));
  } catch {
    throw new DatumError("", "the data is not UTF-8 text, as a JSON schema's data must be");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DatumError("", `the data is not JSON: ${(error as Error).message}`);
  }
}

/** Throws a DatumError naming where `bytes[start, end)` does not conform to the schema. */
export function checkDatum(schema: ParsedSchema, bytes: Uint8Array, start: number, end: number): void {
  if (schema.schemaType === "PROTOBUF") readProtobufDatum(schema, bytes, start, end, false);
  else if (schema.schemaType === "AVRO") readAvroDatum(schema.avro, bytes, start, end, false);
  else validateJson(schema.json, jsonOf(bytes, start, end));
}

/** `bytes[start, end)` as a plain JSON value (src/registry/avro-datum.ts says how Avro maps to it); a DatumError when it cannot be read. */
export function decodeDatum(schema: ParsedSchema, bytes: Uint8Array, start: number, end: number): unknown {
  if (schema.schemaType === "PROTOBUF") return readProtobufDatum(schema, bytes, start, end, true);
  if (schema.schemaType === "AVRO") return readAvroDatum(schema.avro, bytes, start, end, true);
  return jsonOf(bytes, start, end);
}
