import { registryAvroNestingDepthMax } from "../limits.ts";
import { RegistryError } from "./registry-errors.ts";

/**
 * A JSON Schema (drafts 4 to 2020-12) checked at registration: a schema is an object or a
 * boolean, and each keyword the compatibility rules read (src/registry/json-schema-compatibility.ts)
 * has the shape its draft gives it; every local `$ref` resolves. Keywords the rules do not read
 * (titles, descriptions, vocabularies of later drafts) are kept as written and ignored. This is
 * not a meta-schema validation: a validator would generate code at run time (ajv does), which
 * workerd forbids. References to other subjects' schemas are not supported yet (42201).
 */

export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface ParsedJsonSchema {
  /** The root, against which local `$ref`s ("#/definitions/x", "#/$defs/x", "#") resolve. */
  root: JsonSchema;
}

function invalid(message: string): never {
  throw new RegistryError("INVALID_SCHEMA", `Invalid schema: ${message}`);
}

const simpleTypes = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
const schemaMapKeywords = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"];
const schemaKeywords = ["additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames", "not", "if", "then", "else"];
const schemaListKeywords = ["allOf", "anyOf", "oneOf", "prefixItems"];
const numberKeywords = ["minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"];

export function isSchemaObject(schema: unknown): schema is { [keyword: string]: unknown } {
  return typeof schema === "object" && schema !== null && !Array.isArray(schema);
}

/** A local `$ref`'s target in `root`, or undefined when it points nowhere. */
export function resolvePointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let target: unknown = root;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  for (const token of pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof target !== "object" || target === null || !(key in target)) return undefined;
    target = (target as Record<string, unknown>)[key];
  }
  return typeof target === "boolean" || isSchemaObject(target) ? target : undefined;
}

function check(schema: unknown, root: JsonSchema, at: string, depth: number): void {
  if (depth > registryAvroNestingDepthMax) invalid(`subschemas nest deeper than ${registryAvroNestingDepthMax}`);
  if (typeof schema === "boolean") return;
  if (!isSchemaObject(schema)) invalid(`${at || "the root"} is not a schema: a schema is an object or a boolean`);
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.every((entry) => typeof entry === "string" && simpleTypes.has(entry))) invalid(`${at}/type names an unknown type`);
  }
  if (schema.$ref !== undefined) {
    if (typeof schema.$ref !== "string") invalid(`${at}/$ref is not a string`);
    if (resolvePointer(root, schema.$ref) === undefined) invalid(`${at}/$ref ${JSON.stringify(schema.$ref)} does not resolve in the schema (references to other subjects are not supported for JSON yet)`);
  }
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === "string"))) {
    invalid(`${at}/required is not an array of property names`);
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) invalid(`${at}/enum is not an array`);
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== "string") invalid(`${at}/pattern is not a string`);
    try {
      new RegExp(schema.pattern, "u");
    } catch {
      invalid(`${at}/pattern is not a regular expression`);
    }
  }
  for (const keyword of numberKeywords) {
    if (schema[keyword] !== undefined && typeof schema[keyword] !== "number") invalid(`${at}/${keyword} is not a number`);
  }
  for (const keyword of ["exclusiveMinimum", "exclusiveMaximum"]) {
    const value = schema[keyword];
    if (value !== undefined && typeof value !== "number" && typeof value !== "boolean") invalid(`${at}/${keyword} is not a number (or a boolean, draft 4)`);
  }
  for (const keyword of schemaMapKeywords) {
    const map = schema[keyword];
    if (map === undefined) continue;
    if (!isSchemaObject(map)) invalid(`${at}/${keyword} is not an object of schemas`);
    for (const [name, sub] of Object.entries(map)) check(sub, root, `${at}/${keyword}/${name}`, depth + 1);
  }
  for (const keyword of schemaKeywords) if (schema[keyword] !== undefined) check(schema[keyword], root, `${at}/${keyword}`, depth + 1);
  for (const keyword of schemaListKeywords) {
    const list = schema[keyword];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) invalid(`${at}/${keyword} is not a non-empty array of schemas`);
    list.forEach((sub, index) => check(sub, root, `${at}/${keyword}/${index}`, depth + 1));
  }
  const items = schema.items;
  if (Array.isArray(items)) items.forEach((sub, index) => check(sub, root, `${at}/items/${index}`, depth + 1));
  else if (items !== undefined) check(items, root, `${at}/items`, depth + 1);
}

/** Parses a JSON Schema's text: 42201 with the reason when it is not one. */
export function parseJsonSchema(text: string): ParsedJsonSchema {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    invalid(`not JSON: ${(error as Error).message}`);
  }
  check(root, root as JsonSchema, "", 0);
  return { root: root as JsonSchema };
}
