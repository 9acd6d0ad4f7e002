import { registryReferenceDepthMax, registrySchemaBytesMax } from "../limits.ts";
import { avroReadIssues } from "./avro-compatibility.ts";
import { normalizedForm } from "./avro-forms.ts";
import { parseAvro } from "./avro-parse.ts";
import { jsonReadIssues } from "./json-schema-compatibility.ts";
import { parseJsonSchema } from "./json-schema-parse.ts";
import type { JsonReferenced, ParsedJsonSchema } from "./json-schema-types.ts";
import type { AvroNamed, AvroType } from "./avro-types.ts";
import type { Issue } from "./compatibility.ts";
import { RegistryError } from "./registry-errors.ts";
import { protobufReadIssues } from "./protobuf/proto-compatibility.ts";
import { printProtoFile } from "./protobuf/proto-print.ts";
import { parseProtobuf, type ParsedProtobuf, type ProtobufReference } from "./protobuf/proto-schema.ts";

/**
 * The schema types the registry serves (GET /schemas/types) and what each gives the registry:
 * a parse that checks the schema, the text stored (as given, without whitespace, or normalized),
 * and the read rule compatibility levels apply: AVRO, JSON (JSON Schema) and PROTOBUF (`.proto`
 * text, src/registry/protobuf/) (docs/schema-registry.md).
 */
export const supportedSchemaTypes = ["AVRO", "JSON", "PROTOBUF"] as const;
export type SchemaType = (typeof supportedSchemaTypes)[number];
/** Confluent's types: the ones a request may name, supported or not. */
const knownSchemaTypes = new Set(["AVRO", "JSON", "PROTOBUF"]);

export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/** A reference with the schema it names, and that schema's own references, resolved. */
export interface ResolvedReference extends SchemaReference {
  schemaType: string;
  schema: string;
  references: ResolvedReference[];
}

export interface ParsedAvroSchema {
  schemaType: "AVRO";
  avro: AvroType;
  /** The named types the schema defines itself, for the schemas that reference it. */
  defines: ReadonlyMap<string, AvroNamed>;
  /** The named types its references define (written by name in its normalized form). */
  imported: ReadonlyMap<string, AvroNamed>;
}

export interface ParsedJson {
  schemaType: "JSON";
  json: ParsedJsonSchema;
}

export type { ParsedProtobuf } from "./protobuf/proto-schema.ts";

export type ParsedSchema = ParsedAvroSchema | ParsedJson | ParsedProtobuf;

/** JSON with its object keys sorted, no whitespace: one text for one JSON value. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(object[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A request's schemaType (absent: AVRO, as Confluent) checked: 42201 naming an unsupported one. */
export function schemaTypeOf(value: unknown): SchemaType {
  const type = value === undefined || value === null ? "AVRO" : value;
  if (typeof type !== "string") throw new RegistryError("INVALID_SCHEMA", "Invalid schema: schemaType is not a string");
  if ((supportedSchemaTypes as readonly string[]).includes(type)) return type as SchemaType;
  const known = knownSchemaTypes.has(type);
  throw new RegistryError(
    "INVALID_SCHEMA",
    `Invalid schema: schema type ${type} is ${known ? "not supported by this registry yet" : "unknown"}; supported: ${supportedSchemaTypes.join(", ")}`,
  );
}

function checkSize(text: string): void {
  if (text.length * 3 > registrySchemaBytesMax && new TextEncoder().encode(text).length > registrySchemaBytesMax) {
    throw new RegistryError("LIMIT_EXCEEDED", `the schema is larger than ${registrySchemaBytesMax} bytes (limits.ts, registrySchemaBytesMax)`);
  }
}

function checkTextAndDepth(text: string, depth: number): void {
  if (typeof text !== "string") throw new RegistryError("UNPROCESSABLE", "the request has no \"schema\" string");
  checkSize(text);
  if (depth > registryReferenceDepthMax) {
    throw new RegistryError("LIMIT_EXCEEDED", `references nest deeper than ${registryReferenceDepthMax} (limits.ts, registryReferenceDepthMax)`);
  }
}

function checkReferenceType(reference: ResolvedReference, schemaType: SchemaType): SchemaType {
  const referencedType = schemaTypeOf(reference.schemaType);
  if (referencedType !== schemaType) {
    throw new RegistryError("INVALID_SCHEMA", `Invalid schema: reference ${reference.name} is a ${referencedType} schema, not ${schemaType}`);
  }
  return referencedType;
}

/** A JSON schema with its references' documents, each parsed first under its reference's name (its base URI). */
function parseJsonReferenced(text: string, references: readonly ResolvedReference[], depth: number, base: string): ParsedJsonSchema {
  checkTextAndDepth(text, depth);
  const referenced: JsonReferenced[] = references.map((reference) => {
    checkReferenceType(reference, "JSON");
    return { name: reference.name, json: parseJsonReferenced(reference.schema, reference.references, depth + 1, reference.name) };
  });
  return parseJsonSchema(text, referenced, base);
}

/** Parses a schema with its resolved references, each parsed first (depth bounded by registryReferenceDepthMax). */
export function parseSchema(schemaType: SchemaType, text: string, references: readonly ResolvedReference[], depth = 0): ParsedSchema {
  if (schemaType === "JSON") return { schemaType, json: parseJsonReferenced(text, references, depth, "") };
  checkTextAndDepth(text, depth);
  const imported = new Map<string, AvroNamed>();
  const protobufReferences: ProtobufReference[] = [];
  for (const reference of references) {
    const referencedType = checkReferenceType(reference, schemaType);
    const parsed = parseSchema(referencedType, reference.schema, reference.references, depth + 1);
    if (parsed.schemaType === "PROTOBUF") protobufReferences.push({ name: reference.name, parsed });
    if (parsed.schemaType !== "AVRO") continue;
    for (const [name, type] of [...parsed.imported, ...parsed.defines]) imported.set(name, type);
  }
  if (schemaType === "PROTOBUF") return parseProtobuf(text, protobufReferences);
  const { type, defines } = parseAvro(text, imported);
  return { schemaType, avro: type, defines, imported };
}

/**
 * The text the registry stores: as given without whitespace, or in the normalized form
 * (`normalize=true`): Avro's (src/registry/avro-forms.ts), or a JSON Schema with its keys sorted.
 * A `.proto` file is always printed back from its parse (comments and layout dropped, as
 * Confluent stores it), in its normalized form when asked (src/registry/protobuf/proto-print.ts).
 */
export function storedText(parsed: ParsedSchema, text: string, normalize: boolean): string {
  if (parsed.schemaType === "PROTOBUF") return printProtoFile(parsed.proto, normalize);
  if (!normalize) return JSON.stringify(JSON.parse(text));
  if (parsed.schemaType === "JSON") return sortedJson(parsed.json.root);
  return normalizedForm(parsed.avro, parsed.imported.keys());
}

/** The read rule of the schema's type; schemas of two types never read each other. */
export function schemaReadIssues(reader: ParsedSchema, writer: ParsedSchema): Issue[] {
  if (reader.schemaType !== writer.schemaType) {
    return [{ kind: "TYPE_MISMATCH", location: "/", message: `a ${reader.schemaType} schema cannot read ${writer.schemaType} data` }];
  }
  if (reader.schemaType === "JSON" && writer.schemaType === "JSON") return jsonReadIssues(reader.json, writer.json);
  if (reader.schemaType === "AVRO" && writer.schemaType === "AVRO") return avroReadIssues(reader.avro, writer.avro);
  if (reader.schemaType === "PROTOBUF" && writer.schemaType === "PROTOBUF") return protobufReadIssues(reader, writer);
  return [];
}
