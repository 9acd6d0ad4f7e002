import type { Issue } from "./compatibility.ts";
import { isSchemaObject } from "./json-schema-parse.ts";
import type { JsonSchema, ParsedJsonSchema } from "./json-schema-types.ts";
import { resolveRef } from "./json-schema-refs.ts";

/**
 * Whether every document a writer's JSON Schema accepts is accepted by a reader's: the rule
 * compatibility levels apply to JSON schemas (src/registry/compatibility.ts), as Confluent's
 * JSON Schema rules do. Sound, not complete: what the rules cannot show the reader accepts is
 * reported incompatible, never the other way — with one exception, which Confluent's rules share:
 * a reader's oneOf is taken as anyOf (that a document matches only one branch is not checked).
 * The rules, each an issue kind:
 *
 * - **types**: the writer's types (or its enum's or const's values' types) must be the reader's;
 *   `integer` is a `number` (TYPE_NARROWED);
 * - **enum, const**: a reader's enum needs the writer's values among its own (ENUM_ARRAY_NARROWED);
 * - **bounds** (minimum, maximum and their exclusive forms, multipleOf, lengths, item and
 *   property counts): a reader's bound must be present and no tighter in the writer
 *   (<KEYWORD>_ADDED, _INCREASED, _DECREASED); a pattern or format the reader has must be the
 *   writer's (PATTERN_CHANGED, FORMAT_CHANGED);
 * - **content models**: each property's reader schema must accept the writer's schema for it — a
 *   property the writer does not list is whatever its `additionalProperties` allows, so a
 *   property added to an **open** content model (additionalProperties absent or true) is
 *   incompatible unless it accepts anything (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL), and one added
 *   to a **closed** model (additionalProperties false) is compatible; the reader's
 *   additionalProperties must accept the writer's (ADDITIONAL_PROPERTIES_NARROWED); a property the
 *   reader requires the writer must require (REQUIRED_PROPERTY_ADDED); array items likewise,
 *   positional ones and the rest;
 * - **combinations**: a writer's anyOf/oneOf branches must each be accepted; a reader's
 *   anyOf/oneOf must accept the writer in one branch, its allOf in every one
 *   (COMBINED_TYPE_SUBSCHEMAS_CHANGED); `not`, `if`/`then`/`else`, dependencies and the
 *   unevaluated keywords must be the writer's, unchanged (KEYWORD_CHANGED);
 * - `$ref`s are followed, local ones and those into the documents of the schema's references
 *   (src/registry/json-schema-refs.ts), so a change inside a referenced schema is seen through
 *   the referrer; a pair of schemas met again while compared is taken as
 *   compatible (recursive schemas), as any issue inside it is reported by the first comparison.
 */

/** Keywords that constrain nothing (annotations, definitions): a schema with only these accepts anything. */
const annotationKeywords = new Set(["$schema", "$id", "id", "$comment", "title", "description", "default", "examples", "definitions", "$defs", "readOnly", "writeOnly", "deprecated", "$anchor"]);
/** Keywords a reader may have only as the writer has them (the rules do not reason about them). */
const unchangedKeywords = ["not", "if", "then", "else", "dependencies", "dependentRequired", "dependentSchemas", "propertyNames", "contains", "unevaluatedItems", "unevaluatedProperties", "minContains", "maxContains"];

type SchemaObject = { [keyword: string]: unknown };

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as SchemaObject)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function acceptsAnything(schema: JsonSchema): boolean {
  return schema === true || (isSchemaObject(schema) && Object.keys(schema).every((key) => annotationKeywords.has(key)));
}

function valueType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const allTypes = ["null", "boolean", "object", "array", "number", "integer", "string"];

/** The types a schema's instances may have: its `type`, else its enum's or const's values', else all. */
function typesOf(schema: SchemaObject): Set<string> {
  let types: string[] = allTypes;
  if (schema.type !== undefined) types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const values = valuesOf(schema);
  if (values) types = types.filter((type) => values.some((value) => valueType(value) === type || (type === "number" && valueType(value) === "integer")));
  const set = new Set(types);
  if (set.has("number")) set.add("integer");
  return set;
}

function valuesOf(schema: SchemaObject): unknown[] | undefined {
  if ("const" in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

function without(schema: SchemaObject, keyword: string): SchemaObject {
  const { [keyword]: _removed, ...rest } = schema;
  return rest;
}

type Bound = { value: number; exclusive: boolean };

/** A schema's lower or upper numeric bound, the draft-4 boolean and later number forms alike. */
function boundOf(schema: SchemaObject, side: "minimum" | "maximum"): Bound | undefined {
  const inclusive = typeof schema[side] === "number" ? (schema[side] as number) : undefined;
  const exclusiveKeyword = side === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum";
  const exclusive = schema[exclusiveKeyword];
  if (typeof exclusive === "number") {
    if (inclusive === undefined || (side === "minimum" ? exclusive >= inclusive : exclusive <= inclusive)) return { value: exclusive, exclusive: true };
  }
  return inclusive === undefined ? undefined : { value: inclusive, exclusive: exclusive === true };
}

class JsonChecker {
  readonly issues: Issue[] = [];
  readonly #compared = new Map<unknown, Set<unknown>>();

  readonly reader: ParsedJsonSchema;
  readonly writer: ParsedJsonSchema;

  constructor(reader: ParsedJsonSchema, writer: ParsedJsonSchema) {
    this.reader = reader;
    this.writer = writer;
  }

  #issue(kind: string, location: string, message: string): false {
    this.issues.push({ kind, location: location || "/", message });
    return false;
  }

  /** Whether `reader` would accept what `writer` accepts, on a scratch checker (a failing branch reports nothing). */
  #tries(reader: JsonSchema, writer: JsonSchema): boolean {
    const scratch = new JsonChecker(this.reader, this.writer);
    for (const [r, ws] of this.#compared) scratch.#compared.set(r, new Set(ws));
    return scratch.accepts(reader, writer, "");
  }

  accepts(reader: JsonSchema, writer: JsonSchema, at: string): boolean {
    if (writer === false || acceptsAnything(reader)) return true;
    if (reader === false) return this.#issue("TYPE_NARROWED", at, "the reader accepts nothing where the writer accepts documents");
    const seen = this.#compared.get(reader) ?? new Set();
    if (seen.has(writer)) return true;
    this.#compared.set(reader, seen.add(writer));
    const w: SchemaObject = writer === true ? {} : writer;
    const r = reader as SchemaObject;
    // A writer's $ref: its target (siblings ignored, which only widens the writer).
    if (typeof w.$ref === "string") return this.accepts(reader, resolveRef(this.writer, w, w.$ref) ?? true, at);
    if (typeof r.$ref === "string") {
      const target = resolveRef(this.reader, r, r.$ref) ?? false;
      return this.accepts(target, writer, at) && this.accepts(without(r, "$ref"), writer, at);
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      if (Array.isArray(w[keyword])) {
        const branches = w[keyword] as JsonSchema[];
        return branches.map((branch, index) => this.accepts(reader, branch, `${at}/${keyword}/${index}`)).every(Boolean);
      }
    }
    if (Array.isArray(w.allOf)) {
      const candidates = [without(w, "allOf"), ...(w.allOf as JsonSchema[])];
      if (candidates.some((candidate) => this.#tries(reader, candidate))) return true;
      return this.#issue("COMBINED_TYPE_SUBSCHEMAS_CHANGED", at, "no part of the writer's allOf is accepted by the reader on its own");
    }
    if (Array.isArray(r.allOf)) {
      const parts = (r.allOf as JsonSchema[]).map((branch, index) => this.accepts(branch, writer, `${at}/allOf/${index}`));
      return this.accepts(without(r, "allOf"), writer, at) && parts.every(Boolean);
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      if (Array.isArray(r[keyword])) {
        const rest = this.accepts(without(r, keyword), writer, at);
        if ((r[keyword] as JsonSchema[]).some((branch) => this.#tries(branch, writer))) return rest;
        this.#issue("COMBINED_TYPE_SUBSCHEMAS_CHANGED", `${at}/${keyword}`, `no branch of the reader's ${keyword} accepts what the writer accepts`);
        return false;
      }
    }
    return this.#plain(r, w, at);
  }

  #plain(r: SchemaObject, w: SchemaObject, at: string): boolean {
    let ok = true;
    for (const keyword of unchangedKeywords) {
      if (r[keyword] !== undefined && canonical(r[keyword]) !== canonical(w[keyword])) {
        ok = this.#issue("KEYWORD_CHANGED", `${at}/${keyword}`, `the reader's ${keyword} is not the writer's`);
      }
    }
    const readerTypes = typesOf(r);
    const writerTypes = typesOf(w);
    const narrowed = [...writerTypes].filter((type) => !readerTypes.has(type));
    if (narrowed.length > 0) ok = this.#issue("TYPE_NARROWED", `${at}/type`, `the reader does not accept the writer's ${narrowed.join(", ")}`);
    const readerValues = valuesOf(r);
    if (readerValues) {
      const writerValues = valuesOf(w);
      const allowed = new Set(readerValues.map(canonical));
      if (!writerValues || !writerValues.every((value) => allowed.has(canonical(value)))) {
        ok = this.#issue("ENUM_ARRAY_NARROWED", `${at}/enum`, "the reader's enum (or const) lacks values the writer allows");
      }
    }
    const possible = new Set([...writerTypes].filter((type) => readerTypes.has(type)));
    if (possible.has("number") || possible.has("integer")) ok = this.#numbers(r, w, at) && ok;
    if (possible.has("string")) ok = this.#strings(r, w, at) && ok;
    if (possible.has("array")) ok = this.#arrays(r, w, at) && ok;
    if (possible.has("object")) ok = this.#objects(r, w, at) && ok;
    return ok;
  }

  /** A reader's count bound (minLength, maxItems…) the writer must have, no looser. */
  #count(r: SchemaObject, w: SchemaObject, keyword: string, at: string): boolean {
    const bound = r[keyword];
    if (typeof bound !== "number") return true;
    const given = w[keyword];
    const kind = keyword.replace(/([A-Z])/g, "_$1").toUpperCase();
    if (typeof given !== "number") return this.#issue(`${kind}_ADDED`, `${at}/${keyword}`, `the reader adds ${keyword} ${bound}`);
    const looser = keyword.startsWith("min") ? given < bound : given > bound;
    if (looser) return this.#issue(`${kind}_${keyword.startsWith("min") ? "INCREASED" : "DECREASED"}`, `${at}/${keyword}`, `the reader's ${keyword} ${bound} is tighter than the writer's ${given}`);
    return true;
  }

  #numbers(r: SchemaObject, w: SchemaObject, at: string): boolean {
    let ok = true;
    for (const side of ["minimum", "maximum"] as const) {
      const reader = boundOf(r, side);
      if (!reader) continue;
      const writer = boundOf(w, side);
      const kind = side.toUpperCase();
      if (!writer) {
        ok = this.#issue(`${kind}_ADDED`, `${at}/${side}`, `the reader adds a ${side} of ${reader.value}`);
        continue;
      }
      const inside = side === "minimum" ? writer.value > reader.value : writer.value < reader.value;
      if (!inside && !(writer.value === reader.value && (writer.exclusive || !reader.exclusive))) {
        ok = this.#issue(`${kind}_${side === "minimum" ? "INCREASED" : "DECREASED"}`, `${at}/${side}`, `the reader's ${side} is tighter than the writer's`);
      }
    }
    if (typeof r.multipleOf === "number") {
      const given = w.multipleOf;
      if (typeof given !== "number" || !Number.isInteger(given / r.multipleOf)) {
        ok = this.#issue("MULTIPLE_OF_CHANGED", `${at}/multipleOf`, `the writer's numbers need not be multiples of ${r.multipleOf}`);
      }
    }
    return ok;
  }

  #strings(r: SchemaObject, w: SchemaObject, at: string): boolean {
    let ok = this.#count(r, w, "minLength", at);
    ok = this.#count(r, w, "maxLength", at) && ok;
    for (const keyword of ["pattern", "format"]) {
      if (r[keyword] !== undefined && r[keyword] !== w[keyword]) {
        ok = this.#issue(`${keyword.toUpperCase()}_CHANGED`, `${at}/${keyword}`, `the reader's ${keyword} is not the writer's`);
      }
    }
    return ok;
  }

  #arrays(r: SchemaObject, w: SchemaObject, at: string): boolean {
    let ok = this.#count(r, w, "minItems", at);
    ok = this.#count(r, w, "maxItems", at) && ok;
    if (r.uniqueItems === true && w.uniqueItems !== true) ok = this.#issue("UNIQUE_ITEMS_ADDED", `${at}/uniqueItems`, "the reader requires unique items");
    const tuple = (schema: SchemaObject): JsonSchema[] => (Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : []) as JsonSchema[];
    const rest = (schema: SchemaObject): JsonSchema =>
      ((Array.isArray(schema.prefixItems) ? schema.items : Array.isArray(schema.items) ? schema.additionalItems : schema.items) ?? true) as JsonSchema;
    const [readerTuple, writerTuple] = [tuple(r), tuple(w)];
    for (let index = 0; index < Math.max(readerTuple.length, writerTuple.length); index++) {
      ok = this.accepts(readerTuple[index] ?? rest(r), writerTuple[index] ?? rest(w), `${at}/items/${index}`) && ok;
    }
    return this.accepts(rest(r), rest(w), `${at}/items`) && ok;
  }

  #objects(r: SchemaObject, w: SchemaObject, at: string): boolean {
    let ok = this.#count(r, w, "minProperties", at);
    ok = this.#count(r, w, "maxProperties", at) && ok;
    const readerProperties = (r.properties ?? {}) as Record<string, JsonSchema>;
    const writerProperties = (w.properties ?? {}) as Record<string, JsonSchema>;
    const readerPatterns = (r.patternProperties ?? {}) as Record<string, JsonSchema>;
    const writerPatterns = (w.patternProperties ?? {}) as Record<string, JsonSchema>;
    const readerRest = (r.additionalProperties ?? true) as JsonSchema;
    const writerRest = (w.additionalProperties ?? true) as JsonSchema;
    const matching = (patterns: Record<string, JsonSchema>, name: string) => Object.entries(patterns).filter(([pattern]) => new RegExp(pattern, "u").test(name)).map(([, schema]) => schema);
    /** What the writer may have written under a name: its property, else any pattern it matches (the widest view), else the rest. */
    const writerFor = (name: string): JsonSchema[] => (name in writerProperties ? [writerProperties[name]!] : matching(writerPatterns, name).length > 0 ? matching(writerPatterns, name) : [writerRest]);
    for (const name of new Set([...Object.keys(readerProperties), ...Object.keys(writerProperties)])) {
      const readerSchemas = name in readerProperties ? [readerProperties[name]!, ...matching(readerPatterns, name)] : matching(readerPatterns, name).length > 0 ? matching(readerPatterns, name) : [readerRest];
      if (!(name in readerProperties) && matching(readerPatterns, name).length === 0 && readerRest === false) {
        ok = this.#issue("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", `${at}/properties/${name}`, `the reader's closed content model no longer allows property ${name}, which the writer has`);
        continue;
      }
      for (const writerSchema of writerFor(name)) {
        for (const readerSchema of readerSchemas) {
          if (!(name in writerProperties) && acceptsAnything(writerSchema) && !acceptsAnything(readerSchema)) {
            ok = this.#issue("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", `${at}/properties/${name}`, `the reader constrains property ${name}, which the writer's open content model allowed with any value`);
          } else {
            ok = this.accepts(readerSchema, writerSchema, `${at}/properties/${name}`) && ok;
          }
        }
      }
    }
    for (const [pattern, readerSchema] of Object.entries(readerPatterns)) {
      for (const writerSchema of [...Object.values(writerPatterns), writerRest]) ok = this.accepts(readerSchema, writerSchema, `${at}/patternProperties/${pattern}`) && ok;
    }
    for (const writerSchema of [...Object.values(writerPatterns), writerRest]) {
      if (!this.#tries(readerRest, writerSchema)) {
        ok = this.#issue("ADDITIONAL_PROPERTIES_NARROWED", `${at}/additionalProperties`, "the reader's additionalProperties does not accept what the writer's other properties may hold");
        break;
      }
    }
    const writerRequired = new Set((w.required ?? []) as string[]);
    const added = ((r.required ?? []) as string[]).filter((name) => !writerRequired.has(name));
    if (added.length > 0) ok = this.#issue("REQUIRED_PROPERTY_ADDED", `${at}/required`, `the reader requires ${added.join(", ")}, which the writer may leave out`);
    return ok;
  }
}

/** Why `reader` would refuse documents `writer` accepts; empty when it accepts them all (as far as the rules show). */
export function jsonReadIssues(reader: ParsedJsonSchema, writer: ParsedJsonSchema): Issue[] {
  const checker = new JsonChecker(reader, writer);
  checker.accepts(reader.root, writer.root, "");
  return checker.issues;
}
