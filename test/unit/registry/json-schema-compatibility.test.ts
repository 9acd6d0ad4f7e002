import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonReadIssues } from "../../../src/registry/json-schema-compatibility.ts";
import { parseJsonSchema } from "../../../src/registry/json-schema-parse.ts";
import { RegistryError } from "../../../src/registry/registry-errors.ts";

/**
 * JSON Schema compatibility: whether a reader's schema accepts every document a writer's does,
 * each case named after the rule it tests (Confluent's open and closed content models among
 * them); then properties for any schema.
 */

const parse = (schema: unknown) => parseJsonSchema(JSON.stringify(schema));
const kinds = (reader: unknown, writer: unknown) => jsonReadIssues(parse(reader), parse(writer)).map((issue) => issue.kind);
const reads = (reader: unknown, writer: unknown) => kinds(reader, writer).length === 0;
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => object(properties, { additionalProperties: false, ...extra });

describe("parsing JSON schemas", () => {
  it("takes objects and booleans, and refuses what is no schema, saying why", () => {
    expect(() => parse(true)).not.toThrow();
    expect(() => parse({ $defs: { n: { type: "integer" } }, $ref: "#/$defs/n" })).not.toThrow();
    for (const [schema, reason] of [
      [3, /not a schema/],
      [{ type: "text" }, /unknown type/],
      [{ $ref: "#/definitions/missing" }, /does not resolve/],
      [{ $ref: "other.json" }, /"other.json" does not resolve: it names no document among the schema.s references/],
      [{ pattern: "(" }, /regular expression/],
      [{ properties: { a: 3 } }, /properties\/a is not a schema/],
      [{ anyOf: [] }, /non-empty array/],
      [{ required: "a" }, /required/],
      [{ maxLength: "3" }, /maxLength is not a number/],
    ] as const) {
      expect(() => parse(schema), JSON.stringify(schema)).toThrow(reason);
      expect(() => parse(schema)).toThrow(RegistryError);
    }
    expect(() => parseJsonSchema("{")).toThrow(/not JSON/);
  });
});

describe("JSON Schema compatibility (the reader accepts what the writer accepts)", () => {
  it("open content model: a property added is incompatible, a property removed compatible", () => {
    const before = object({ a: { type: "string" } });
    expect(kinds(object({ a: { type: "string" }, b: { type: "integer" } }), before)).toEqual(["PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"]);
    expect(reads(object({}), before)).toBe(true);
    // A property that accepts anything is no constraint: adding it is compatible.
    expect(reads(object({ a: { type: "string" }, b: {} }), before)).toBe(true);
  });

  it("closed content model: an optional property added is compatible, a required one or a removal is not", () => {
    const before = closed({ a: { type: "string" } });
    expect(reads(closed({ a: { type: "string" }, b: { type: "integer" } }), before)).toBe(true);
    expect(kinds(closed({ a: { type: "string" }, b: { type: "integer" } }, { required: ["b"] }), before)).toEqual(["REQUIRED_PROPERTY_ADDED"]);
    expect(kinds(closed({}), before)).toEqual(["PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"]);
  });

  it("closing an open model is incompatible; opening a closed one is compatible", () => {
    expect(kinds(closed({ a: { type: "string" } }), object({ a: { type: "string" } }))).toEqual(["ADDITIONAL_PROPERTIES_NARROWED"]);
    expect(reads(object({ a: { type: "string" } }), closed({ a: { type: "string" } }))).toBe(true);
  });

  it("partially open content model: a property added must accept what additionalProperties allowed", () => {
    const before = object({}, { additionalProperties: { type: "string" } });
    expect(reads(object({ b: { type: "string", maxLength: 10 } }, { additionalProperties: { type: "string" } }), before)).toBe(false);
    expect(reads(object({ b: { type: ["string", "null"] } }, { additionalProperties: { type: "string" } }), before)).toBe(true);
    expect(kinds(object({ b: { type: "integer" } }, { additionalProperties: { type: "string" } }), before)).toEqual(["TYPE_NARROWED"]);
  });

  it("types: widening is compatible (integer is a number), narrowing is not", () => {
    expect(reads({ type: "number" }, { type: "integer" })).toBe(true);
    expect(reads({ type: ["string", "null"] }, { type: "string" })).toBe(true);
    expect(kinds({ type: "integer" }, { type: "number" })).toEqual(["TYPE_NARROWED"]);
    expect(kinds({ type: "string" }, {})).toEqual(["TYPE_NARROWED"]);
    expect(reads({}, { type: "string" })).toBe(true);
  });

  it("bounds: a reader's bound must be the writer's or looser", () => {
    expect(kinds({ type: "string", maxLength: 5 }, { type: "string" })).toEqual(["MAX_LENGTH_ADDED"]);
    expect(kinds({ type: "string", maxLength: 5 }, { type: "string", maxLength: 9 })).toEqual(["MAX_LENGTH_DECREASED"]);
    expect(reads({ type: "string", maxLength: 9 }, { type: "string", maxLength: 5 })).toBe(true);
    expect(reads({ type: "string" }, { type: "string", maxLength: 5 })).toBe(true);
    expect(kinds({ type: "array", minItems: 2 }, { type: "array", minItems: 1 })).toEqual(["MIN_ITEMS_INCREASED"]);
    expect(kinds({ type: "number", minimum: 1 }, { type: "number", minimum: 0 })).toEqual(["MINIMUM_INCREASED"]);
    expect(reads({ type: "number", exclusiveMinimum: 0 }, { type: "number", minimum: 1 })).toBe(true);
    expect(kinds({ type: "number", exclusiveMinimum: 0 }, { type: "number", minimum: 0 })).toEqual(["MINIMUM_INCREASED"]);
    expect(reads({ type: "number", minimum: 0, exclusiveMinimum: true }, { type: "number", minimum: 1 })).toBe(true); // draft 4's form
    expect(reads({ type: "integer", multipleOf: 2 }, { type: "integer", multipleOf: 4 })).toBe(true);
    expect(kinds({ type: "integer", multipleOf: 4 }, { type: "integer", multipleOf: 2 })).toEqual(["MULTIPLE_OF_CHANGED"]);
    expect(kinds({ type: "string", pattern: "^a" }, { type: "string" })).toEqual(["PATTERN_CHANGED"]);
    // A bound on a type the writer never writes does not matter.
    expect(reads({ type: ["integer", "string"], maxLength: 3 }, { type: "integer" })).toBe(true);
  });

  it("enums: extending is compatible, narrowing is not", () => {
    expect(reads({ enum: ["a", "b", "c"] }, { enum: ["a", "b"] })).toBe(true);
    expect(kinds({ enum: ["a"] }, { enum: ["a", "b"] })).toEqual(["ENUM_ARRAY_NARROWED"]);
    expect(reads({ type: "string" }, { const: "a" })).toBe(true);
  });

  it("required: adding a required property is incompatible, removing one compatible", () => {
    expect(kinds(object({ a: {} }, { required: ["a"] }), object({ a: {} }))).toEqual(["REQUIRED_PROPERTY_ADDED"]);
    expect(reads(object({ a: {} }), object({ a: {} }, { required: ["a"] }))).toBe(true);
  });

  it("arrays: items resolve as schemas, positional ones too", () => {
    expect(reads({ type: "array", items: { type: "number" } }, { type: "array", items: { type: "integer" } })).toBe(true);
    expect(kinds({ type: "array", items: { type: "integer" } }, { type: "array", items: { type: "number" } })).toEqual(["TYPE_NARROWED"]);
    expect(reads({ type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }, { type: "array", prefixItems: [{ type: "string" }], items: { type: "integer" } })).toBe(true);
  });

  it("combinations: a branch added to the reader's oneOf is compatible, removed is not; each writer branch must be read", () => {
    const two = { oneOf: [{ type: "string" }, { type: "integer" }] };
    expect(reads({ oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] }, two)).toBe(true);
    expect(kinds({ oneOf: [{ type: "string" }] }, two)).toEqual(["COMBINED_TYPE_SUBSCHEMAS_CHANGED"]);
    expect(kinds({ anyOf: [{ type: "boolean" }] }, { type: "string" })).toEqual(["COMBINED_TYPE_SUBSCHEMAS_CHANGED"]);
    expect(reads({ allOf: [{ type: "string" }, { maxLength: 9 }] }, { type: "string", maxLength: 3 })).toBe(true);
    expect(reads({ type: "string" }, { allOf: [{ type: "string" }, { maxLength: 3 }] })).toBe(true);
  });

  it("local $refs are followed, recursive schemas compared once per pair", () => {
    const tree = (leaf: string) => ({ $defs: { node: object({ value: { type: leaf }, children: { type: "array", items: { $ref: "#/$defs/node" } } }) }, $ref: "#/$defs/node" });
    expect(reads(tree("number"), tree("integer"))).toBe(true);
    expect(kinds(tree("integer"), tree("number"))).toEqual(["TYPE_NARROWED"]);
  });

  it("keywords it does not reason about must stay as the writer had them", () => {
    expect(kinds({ not: { type: "null" } }, {})).toEqual(["KEYWORD_CHANGED"]);
    expect(reads({ not: { type: "null" } }, { not: { type: "null" } })).toBe(true);
  });
});

const leaf = fc.constantFrom<unknown>({ type: "string" }, { type: "integer" }, { type: "number", minimum: 0 }, { type: ["string", "null"] }, { enum: ["a", "b"] }, {}, true);
const schema = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3 }),
      additionalProperties: fc.constantFrom<unknown>(true, false, { type: "string" }),
    }),
    fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
  ),
})).node;

/** A validator for the generated schemas' keywords only: the oracle of the soundness property. */
function valid(schema: unknown, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  const s = schema as Record<string, any>;
  const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const type = typeOf(value);
    if (!types.includes(type) && !(type === "integer" && types.includes("number"))) return false;
  }
  if (s.enum !== undefined && !s.enum.some((entry: unknown) => JSON.stringify(entry) === JSON.stringify(value))) return false;
  if (typeof value === "number" && s.minimum !== undefined && value < s.minimum) return false;
  if (Array.isArray(value) && s.items !== undefined && !value.every((item) => valid(s.items, item))) return false;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) if (!valid(s.properties?.[key] ?? s.additionalProperties ?? true, item)) return false;
    if ((s.required ?? []).some((key: string) => !(key in value))) return false;
  }
  if (s.anyOf !== undefined && !s.anyOf.some((branch: unknown) => valid(branch, value))) return false;
  return true;
}

const documents = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<unknown>(null, true, -1, 0, 2, 0.5, "a", "b", "x"),
    fc.array(tie("value"), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

describe("properties of JSON Schema compatibility", () => {
  it("is sound: when the reader is found to accept the writer, every document the writer accepts the reader accepts", () => {
    const readerOf = fc.oneof(schema, fc.tuple(schema, schema).map(([a, b]) => ({ anyOf: [a, b] })));
    fc.assert(
      fc.property(readerOf, schema, fc.array(documents, { minLength: 1, maxLength: 20 }), (reader, writer, values) => {
        if (!reads(reader, writer)) return true;
        return values.every((value) => !valid(writer, value) || valid(reader, value));
      }),
      { numRuns: 2_000 },
    );
  });

  it("every schema accepts what it accepts itself", () => {
    fc.assert(fc.property(schema, (json) => jsonReadIssues(parse(json), parse(json)).length === 0));
  });

  it("anything reads any schema, and a schema reads nothing-at-all", () => {
    fc.assert(fc.property(schema, (json) => reads({}, json) && reads(json, false)));
  });

  it("a union with one more branch reads what the narrower schema accepted", () => {
    fc.assert(fc.property(schema, schema, (first, second) => reads({ anyOf: [first, second] }, first)));
  });
});
