import { registryAvroNestingDepthMax } from "../limits.ts";
import { RegistryError } from "./registry-errors.ts";
import { resolveRef, resolveUri, splitFragment } from "./json-schema-refs.ts";
import type { JsonReferenced, JsonSchema, ParsedJsonSchema } from "./json-schema-types.ts";

/**
 * A JSON Schema (drafts 4 to 2020-12) checked at registration: a schema is an object or a
 * boolean, and each keyword the compatibility rules read (src/registry/json-schema-compatibility.ts)
 * has the shape its draft gives it; every local `$ref` resolves. Keywords the rules do not read
 * (titles, descriptions, vocabularies of later drafts) are kept as written and ignored. This is
 * not a meta-schema validation: a validator would generate code at run time (ajv does), which
 * workerd forbids. A `$ref` to another document must name one of the schema's references
 * (src/registry/json-schema-refs.ts says how it resolves): 42201 naming the `$ref` otherwise.
 */

/** What one pass over a document gathers: resources, bases, and the `$ref`s to check once all are known. */
interface Walk {
  resources: Map<string, JsonSchema>;
  bases: Map<object, string>;
  refs: { from: object; ref: string; at: string }[];
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

function check(schema: unknown, walk: Walk, base: string, at: string, depth: number): void {
  if (depth > registryAvroNestingDepthMax) invalid(`subschemas nest deeper than ${registryAvroNestingDepthMax}`);
  if (typeof schema === "boolean") return;
  if (!isSchemaObject(schema)) invalid(`${at || "the root"} is not a schema: a schema is an object or a boolean`);
  if (typeof schema.$id === "string" && !schema.$id.startsWith("#")) {
    base = splitFragment(resolveUri(schema.$id, base)).document; // a new resource, the base of what it holds
    if (!walk.resources.has(base)) walk.resources.set(base, schema);
  }
  walk.bases.set(schema, base);
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.every((entry) => typeof entry === "string" && simpleTypes.has(entry))) invalid(`${at}/type names an unknown type`);
  }
  if (schema.$ref !== undefined) {
    if (typeof schema.$ref !== "string") invalid(`${at}/$ref is not a string`);
    walk.refs.push({ from: schema, ref: schema.$ref, at });
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
    for (const [name, sub] of Object.entries(map)) check(sub, walk, base, `${at}/${keyword}/${name}`, depth + 1);
  }
  for (const keyword of schemaKeywords) if (schema[keyword] !== undefined) check(schema[keyword], walk, base, `${at}/${keyword}`, depth + 1);
  for (const keyword of schemaListKeywords) {
    const list = schema[keyword];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) invalid(`${at}/${keyword} is not a non-empty array of schemas`);
    list.forEach((sub, index) => check(sub, walk, base, `${at}/${keyword}/${index}`, depth + 1));
  }
  const items = schema.items;
  if (Array.isArray(items)) items.forEach((sub, index) => check(sub, walk, base, `${at}/items/${index}`, depth + 1));
  else if (items !== undefined) check(items, walk, base, `${at}/items`, depth + 1);
}

/**
 * Parses a JSON Schema's text: 42201 with the reason when it is not one, or when a `$ref` points
 * nowhere in it or in its references' documents. `base` is the document's URI when it is itself
 * a reference's document (its name), "" for the schema registered.
 */
export function parseJsonSchema(text: string, referenced: readonly JsonReferenced[] = [], base = ""): ParsedJsonSchema {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    invalid(`not JSON: ${(error as Error).message}`);
  }
  const ownBase = splitFragment(resolveUri(base, "")).document;
  const walk: Walk = { resources: new Map([[ownBase, root as JsonSchema]]), bases: new Map(), refs: [] };
  check(root, walk, ownBase, "", 0);
  const rootBase = isSchemaObject(root) ? walk.bases.get(root)! : ownBase;
  for (const { name, json } of referenced) {
    for (const key of [name, splitFragment(resolveUri(name, rootBase)).document]) if (!walk.resources.has(key)) walk.resources.set(key, json.root);
    for (const [uri, document] of json.resources) if (!walk.resources.has(uri)) walk.resources.set(uri, document);
    for (const [object, objectBase] of json.bases) walk.bases.set(object, objectBase);
  }
  const parsed: ParsedJsonSchema = { root: root as JsonSchema, resources: walk.resources, bases: walk.bases };
  for (const { from, ref, at } of walk.refs) {
    if (resolveRef(parsed, from, ref) !== undefined) continue;
    const external = splitFragment(ref).document !== "";
    invalid(`${at}/$ref ${JSON.stringify(ref)} does not resolve${external ? ": it names no document among the schema's references (give one whose name is the $ref's URL or path)" : " in the schema"}`);
  }
  return parsed;
}
