/**
 * Confluent's wire format and subject name strategies: what a topic with schema id validation
 * (`confluent.key.schema.validation` / `confluent.value.schema.validation`, docs/schema-registry.md,
 * "Records checked before they are written") asks of each key or value. Pure.
 *
 *   byte  0      magic byte, 0
 *   bytes 1..4   schema id, int32 big-endian (the registry's global id)
 *   bytes 5..    Avro binary, JSON text, or for Protobuf the message indexes (zigzag varints:
 *                the record's message) and then the message's binary encoding
 *
 * Only the header is read here; full validation (`tributary.*.schema.validation=full`) reads the
 * data after it against the schema (src/registry/datum-read.ts).
 */

import { protobufRecordName } from "./protobuf/proto-schema.ts";

export const wireMagicByte = 0;
/** The magic byte and the schema id. */
export const wireHeaderBytes = 5;

/**
 * The schema id a key or value (`length` bytes of `bytes` from `start`) names in the wire format,
 * or why it does not: a string that completes "the value …".
 */
export function wireSchemaId(bytes: Uint8Array, start: number, length: number): number | string {
  if (length === 0) return "is empty, not Confluent's wire format (magic byte 0 and a 4-byte schema id)";
  const magic = bytes[start]!;
  if (magic !== wireMagicByte) return `starts with byte ${magic}, not Confluent's wire format's magic byte 0`;
  if (length < wireHeaderBytes) return `has ${length} bytes, fewer than Confluent's wire format's 5 (magic byte 0 and a 4-byte schema id)`;
  // Read as unsigned: an id with the top bit set is no id the registry gives (ids count from 1).
  return ((bytes[start + 1]! << 24) | (bytes[start + 2]! << 16) | (bytes[start + 3]! << 8) | bytes[start + 4]!) >>> 0;
}

/** Message indexes past this many name no message of a schema the registry takes (its nesting bound). */
const messageIndexesMax = 64;

/**
 * The message indexes that follow the header in Protobuf's wire format (a zigzag varint count,
 * then that many zigzag varints; a count of 0 is the first message), joined with dots: "0",
 * "0.1"… Undefined when the bytes do not hold them. Read for every record whose strategy needs a
 * record name; only a PROTOBUF schema's check uses them.
 */
export function protobufMessagePath(bytes: Uint8Array, start: number, end: number): string | undefined {
  let pos = start;
  const zigzag = (): number | undefined => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= end) return undefined;
      const byte = bytes[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    return undefined;
  };
  const count = zigzag();
  if (count === undefined || count < 0 || count > messageIndexesMax) return undefined;
  if (count === 0) return "0";
  const indexes: number[] = [];
  for (let index = 0; index < count; index++) {
    const next = zigzag();
    if (next === undefined || next < 0) return undefined;
    indexes.push(next);
  }
  return indexes.join(".");
}

export const subjectNameStrategies = ["TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"] as const;
export type SubjectNameStrategy = (typeof subjectNameStrategies)[number];

/** Where Confluent's strategy classes live: Confluent Server takes the class names, serializers' configs too. */
export const subjectStrategyPackage = "io.confluent.kafka.serializers.subject.";

/** The values a `confluent.*.subject.name.strategy` config takes: each strategy's class name, and its short name. */
export const subjectStrategyConfigValues: readonly string[] = subjectNameStrategies.flatMap((name) => [`${subjectStrategyPackage}${name}`, name]);

/** The strategy a config value names (one of subjectStrategyConfigValues). */
export function subjectStrategyOf(configValue: string): SubjectNameStrategy {
  const name = configValue.startsWith(subjectStrategyPackage) ? configValue.slice(subjectStrategyPackage.length) : configValue;
  return (subjectNameStrategies as readonly string[]).includes(name) ? (name as SubjectNameStrategy) : "TopicNameStrategy";
}

/** Whether the strategy's subject depends on the schema (its record name) rather than on the topic alone. */
export function strategyNeedsRecordName(strategy: SubjectNameStrategy): boolean {
  return strategy !== "TopicNameStrategy";
}

/**
 * The subject a key's or value's schema must be registered under (Confluent's strategies):
 * `<topic>-key` / `<topic>-value`; the schema's record name; `<topic>-<record name>`.
 */
export function subjectFor(strategy: SubjectNameStrategy, topic: string, isKey: boolean, recordName: string | undefined): string | undefined {
  if (strategy === "TopicNameStrategy") return `${topic}-${isKey ? "key" : "value"}`;
  if (recordName === undefined) return undefined;
  return strategy === "RecordNameStrategy" ? recordName : `${topic}-${recordName}`;
}

const avroNamedTypes = new Set(["record", "error", "enum", "fixed"]);

function avroRecordName(schema: unknown): string | undefined {
  if (typeof schema === "string") return schema; // a primitive, or a named type referenced by name
  if (Array.isArray(schema)) return "union";
  if (typeof schema !== "object" || schema === null) return undefined;
  const { type, name, namespace } = schema as { type?: unknown; name?: unknown; namespace?: unknown };
  if (typeof type === "string" && avroNamedTypes.has(type)) {
    if (typeof name !== "string") return undefined;
    if (name.includes(".") || typeof namespace !== "string" || namespace === "") return name;
    return `${namespace}.${name}`;
  }
  return typeof type === "string" ? type : avroRecordName(type);
}

/**
 * A schema's record name, as RecordNameStrategy and TopicRecordNameStrategy use it: an Avro
 * named type's full name (a primitive's, array's or map's type name, "union" for a union, as
 * Avro names them); a JSON schema's `title`; a Protobuf schema's first message's full name. Undefined when the schema has none (a JSON schema
 * without a title), or is not one of the registry's types.
 */
export function schemaRecordName(schemaType: string, text: string): string | undefined {
  if (schemaType === "PROTOBUF") return protobufRecordName(text);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (schemaType === "AVRO") return avroRecordName(schema);
  if (schemaType === "JSON" && typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
    const title = (schema as { title?: unknown }).title;
    return typeof title === "string" && title !== "" ? title : undefined;
  }
  return undefined;
}
