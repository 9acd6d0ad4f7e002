/**
 * `decode=schema` on JSON fetch and SSE (docs/api.md, "Reading decoded"; docs/schema-registry.md):
 * a key or value in Confluent's wire format is shown as the JSON its schema decodes it to (Avro
 * binary by src/registry/avro-datum.ts's plain JSON; JSON as it is), with `keySchemaId` /
 * `valueSchemaId` beside it. One that cannot be decoded — not in the wire format, an id the
 * registry does not have, data that does not conform — is shown as usual (in the read's
 * `encoding`) with `keyDecodeError` / `valueDecodeError` saying why. Schemas come from the
 * isolate's parsed cache (src/data-plane/parsed-schemas.ts): one registry call per read at most,
 * none once warm. A read decodes at most schemaValidationIdsPerRequestMax distinct ids.
 */
import { TributaryError } from "../errors.ts";
import { schemaValidationIdsPerRequestMax } from "../limits.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import { recordJson } from "../protocol/record-json.ts";
import type { Encoding } from "../protocol/schemas.ts";
import { DatumError } from "../registry/datum-error.ts";
import { decodeDatum } from "../registry/datum-read.ts";
import type { ParsedSchema } from "../registry/schema-types.ts";
import { wireHeaderBytes, wireSchemaId } from "../registry/wire-format.ts";
import { parsedSchemas } from "./parsed-schemas.ts";

/** A record as JSON: recordJson's fields, a decoded key or value in place of its text, the schema ids and notes beside them. */
type RecordJson = Record<string, unknown>;

/** The read's schemas by id, or why none could be had (the registry did not answer). */
type Schemas = Map<number, ParsedSchema | undefined> | string;

function idsOf(records: readonly DecodedRecord[]): Set<number> {
  const ids = new Set<number>();
  for (const record of records) {
    for (const bytes of [record.key, record.value]) {
      if (bytes === null) continue;
      const id = wireSchemaId(bytes, 0, bytes.length);
      if (typeof id === "number" && ids.size < schemaValidationIdsPerRequestMax) ids.add(id);
    }
  }
  return ids;
}

/** `bytes` decoded, or why not. */
function decodeField(bytes: Uint8Array, schemas: Schemas): { id: number; decoded: unknown } | string {
  const id = wireSchemaId(bytes, 0, bytes.length);
  if (typeof id === "string") return id;
  if (typeof schemas === "string") return schemas;
  if (!schemas.has(id)) return `names schema id ${id}, past the ${schemaValidationIdsPerRequestMax} distinct schema ids one read decodes`;
  const schema = schemas.get(id);
  if (schema === undefined) return `names schema id ${id}, which the schema registry does not have`;
  try {
    return { id, decoded: decodeDatum(schema, bytes, wireHeaderBytes, bytes.length) };
  } catch (error) {
    if (error instanceof DatumError) return `does not conform to schema id ${id} (${schema.schemaType}) ${error.message}`;
    throw error;
  }
}

function withDecoded(json: RecordJson, side: "key" | "value", bytes: Uint8Array | null, schemas: Schemas): void {
  if (bytes === null) return; // null stays null: nothing to decode
  const outcome = decodeField(bytes, schemas);
  if (typeof outcome === "string") json[`${side}DecodeError`] = outcome;
  else {
    json[side] = outcome.decoded;
    json[`${side}SchemaId`] = outcome.id;
  }
}

/** The records as JSON (recordJson's shape), their keys and values decoded by their schemas where they can be. */
export async function schemaDecodedRecords(env: Env, records: readonly DecodedRecord[], encoding: Encoding): Promise<RecordJson[]> {
  const ids = idsOf(records);
  let schemas: Schemas = new Map();
  if (ids.size > 0) {
    try {
      schemas = await parsedSchemas(env, ids);
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "REQUEST_TIMED_OUT") throw error;
      schemas = "was not decoded: the schema registry did not answer";
    }
  }
  return records.map((record) => {
    const json: RecordJson = recordJson(record, encoding);
    withDecoded(json, "key", record.key, schemas);
    withDecoded(json, "value", record.value, schemas);
    return json;
  });
}

/** The records as JSON: decoded by schema with `decode`, else as recordJson gives them. */
export function recordsJson(env: Env, records: readonly DecodedRecord[], encoding: Encoding, decode: boolean): Promise<RecordJson[]> | RecordJson[] {
  return decode ? schemaDecodedRecords(env, records, encoding) : records.map((record) => recordJson(record, encoding));
}
