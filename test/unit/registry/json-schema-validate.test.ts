/**
 * The JSON Schema validator of full validation (src/registry/json-schema-validate.ts): the
 * keywords of drafts 4 to 2020-12 as their specifications define them, each refusal naming
 * where in the document, and the bounds on its work; and datum-read.ts's JSON path (UTF-8,
 * JSON text) that feeds it.
 */
import { describe, expect, it } from "vitest";
import { schemaDatumDepthMax } from "../../../src/limits.ts";
import { DatumError } from "../../../src/registry/datum-error.ts";
import { checkDatum, decodeDatum } from "../../../src/registry/datum-read.ts";
import { parseJsonSchema } from "../../../src/registry/json-schema-parse.ts";
import { validateJson } from "../../../src/registry/json-schema-validate.ts";

function failure(schema: unknown, value: unknown, stepsMax?: number): string | undefined {
  try {
    validateJson(parseJsonSchema(JSON.stringify(schema)), value, stepsMax);
    return undefined;
  } catch (error) {
    if (error instanceof DatumError) return error.message;
    throw error;
  }
}

/** Each schema with the documents it accepts and those it refuses (with the refusal's start). */
const cases: { name: string; schema: unknown; valid: unknown[]; invalid: [unknown, RegExp][] }[] = [
  { name: "boolean schemas", schema: { properties: { any: true, none: false } }, valid: [{ any: 1 }, {}], invalid: [[{ none: 1 }, /^at \/none: no value is allowed/]] },
  {
    name: "type, integer and number",
    schema: { type: ["integer", "null"] },
    valid: [1, -3, 2.0, null],
    invalid: [[1.5, /not of type integer or null/], ["1", /not of type/], [true, /not of type/]],
  },
  { name: "enum and const", schema: { properties: { e: { enum: [1, "a", { x: [1] }] }, c: { const: { k: null } } } }, valid: [{ e: { x: [1] }, c: { k: null } }], invalid: [[{ e: 2 }, /^at \/e: 2 is not one of enum/], [{ c: { k: 0 } }, /^at \/c: .* is not const/]] },
  {
    name: "numbers (2020-12)",
    schema: { minimum: 1, maximum: 10, exclusiveMaximum: 10, multipleOf: 0.5 },
    valid: [1, 9.5],
    invalid: [[0.5, /less than minimum 1/], [10, /not less than exclusiveMaximum 10/], [1.25, /not a multiple of 0.5/]],
  },
  { name: "draft 4's boolean exclusiveMinimum", schema: { $schema: "http://json-schema.org/draft-04/schema#", minimum: 0, exclusiveMinimum: true }, valid: [0.1], invalid: [[0, /less than or equal to minimum 0/]] },
  { name: "multipleOf with decimals", schema: { multipleOf: 0.01 }, valid: [19.99, 0.07], invalid: [[0.001, /multiple/]] },
  {
    name: "strings in code points, patterns in Unicode",
    schema: { minLength: 2, maxLength: 3, pattern: "^\\P{Nd}+$" },
    valid: ["😀😀", "héé"],
    invalid: [["😀", /1 characters is shorter than minLength 2/], ["abcd", /longer than maxLength 3/], ["a1", /does not match pattern/]],
  },
  { name: "format is an annotation", schema: { format: "email" }, valid: ["not an email"], invalid: [] },
  {
    name: "items, draft 4 tuples with additionalItems",
    schema: { items: [{ type: "string" }, { type: "number" }], additionalItems: false },
    valid: [["a", 1], ["a"]],
    invalid: [[["a", "b"], /^at \/1: "b" is not of type number/], [["a", 1, 2], /^at \/2: no value is allowed/]],
  },
  { name: "prefixItems and items (2020-12)", schema: { prefixItems: [{ type: "string" }], items: { type: "integer" } }, valid: [["a", 1, 2]], invalid: [[["a", 1, "x"], /^at \/2:/]] },
  {
    name: "array counts, uniqueItems, contains",
    schema: { minItems: 1, maxItems: 4, uniqueItems: true, contains: { const: 0 }, minContains: 1, maxContains: 1 },
    valid: [[0, 1], [{ a: 1 }, 0]],
    invalid: [[[], /fewer than minItems 1/], [[1, 2], /0 items match "contains"/], [[0, 1, 1], /items 1 and 2 are equal/], [[0, [0], 0 + 0.5, 1, 2], /more than maxItems/]],
  },
  {
    name: "objects: required, properties, patternProperties, additionalProperties",
    schema: { required: ["id"], properties: { id: { type: "integer" } }, patternProperties: { "^x-": { type: "string" } }, additionalProperties: false, maxProperties: 3 },
    valid: [{ id: 1, "x-a": "s" }],
    invalid: [[{}, /required property "id" is missing/], [{ id: 1, other: 2 }, /^at \/other: the schema does not allow this property/], [{ id: 1, "x-a": 1 }, /^at \/x-a: 1 is not of type string/], [{ id: 1, "x-a": "", "x-b": "", "x-c": "" }, /more than maxProperties 3/]],
  },
  { name: "propertyNames", schema: { propertyNames: { maxLength: 2 } }, valid: [{ ab: 1 }], invalid: [[{ abc: 1 }, /^at \/abc: the property name does not conform/]] },
  {
    name: "dependencies (draft 7) and dependentRequired/dependentSchemas (2019-09)",
    schema: { dependencies: { a: ["b"] }, dependentSchemas: { c: { required: ["d"] } } },
    valid: [{ a: 1, b: 2 }, { c: 1, d: 1 }, {}],
    invalid: [[{ a: 1 }, /property "b" is missing, which "a" requires/], [{ c: 1 }, /required property "d"/]],
  },
  {
    name: "allOf, anyOf, oneOf, not",
    schema: { allOf: [{ type: "number" }], anyOf: [{ minimum: 10 }, { maximum: 0 }], oneOf: [{ multipleOf: 2 }, { multipleOf: 3 }], not: { const: -6 } },
    valid: [12 + 2, -2, -3],
    invalid: [[5, /matches none of anyOf's 2 schemas/], [12, /matches 2 of oneOf's schemas/], [-6, /matches 2 of oneOf|matches the schema of "not"/], [-1, /matches none of oneOf/]],
  },
  { name: "if/then/else", schema: { if: { properties: { kind: { const: "a" } } }, then: { required: ["a"] }, else: { required: ["b"] } }, valid: [{ kind: "a", a: 1 }, { kind: "z", b: 1 }], invalid: [[{ kind: "a" }, /"a" is missing/], [{ kind: "z" }, /"b" is missing/]] },
  {
    name: "$ref to definitions, recursive",
    schema: { $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, v: { type: "integer" } } } }, $ref: "#/$defs/node" },
    valid: [{ v: 1, next: { v: 2, next: {} } }],
    invalid: [[{ next: { next: { v: "x" } } }, /^at \/next\/next\/v: "x" is not of type integer/]],
  },
  { name: "$ref's siblings apply from 2019-09", schema: { definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 1 }, valid: ["a"], invalid: [["ab", /maxLength/]] },
  { name: "$ref hides its siblings in draft 7", schema: { $schema: "http://json-schema.org/draft-07/schema#", definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 1 }, valid: ["ab"], invalid: [[1, /not of type string/]] },
  {
    name: "unevaluatedProperties sees what in-place applicators evaluated",
    schema: { allOf: [{ properties: { a: true } }], anyOf: [{ properties: { b: true } }, { required: ["zz"] }], unevaluatedProperties: false },
    valid: [{ a: 1, b: 2 }],
    invalid: [[{ a: 1, c: 3 }, /^at \/c: the schema does not allow this property \(unevaluatedProperties/]],
  },
  { name: "unevaluatedProperties ignores a failed branch's annotations", schema: { anyOf: [{ properties: { a: true }, required: ["q"] }, true], unevaluatedProperties: false }, valid: [{}], invalid: [[{ a: 1 }, /^at \/a:/]] },
  { name: "unevaluatedItems", schema: { prefixItems: [true], contains: { type: "string" }, unevaluatedItems: { type: "integer" } }, valid: [[null, "s", 3]], invalid: [[[null, "s", null], /^at \/2: null is not of type integer/]] },
];

describe("JSON Schema validation", () => {
  for (const { name, schema, valid, invalid } of cases) {
    it(name, () => {
      for (const value of valid) expect(failure(schema, value), JSON.stringify(value)).toBeUndefined();
      for (const [value, reason] of invalid) expect(failure(schema, value), JSON.stringify(value)).toMatch(reason);
    });
  }

  it("bounds its work: nesting, and evaluations that anyOf could multiply", () => {
    const deep = JSON.parse("[".repeat(schemaDatumDepthMax + 2) + "]".repeat(schemaDatumDepthMax + 2));
    expect(failure({ $defs: { a: { items: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" }, deep)).toMatch(/nests deeper than/);
    // Each level's anyOf tries both branches down to the leaves: 2^20 evaluations for 20 levels.
    const exponential = { $defs: { n: { anyOf: [{ items: { $ref: "#/$defs/n" }, minItems: 1 }, { items: { $ref: "#/$defs/n" } }] } }, $ref: "#/$defs/n" };
    let nested: unknown = [];
    for (let level = 0; level < 20; level++) nested = [nested];
    expect(failure(exponential, nested, 10_000)).toMatch(/more than 10000 steps/);
    expect(failure(exponential, [[[]]], 10_000)).toBeUndefined();
  });

  it("reads a JSON payload as UTF-8 JSON before validating it, and decodes it as it is", () => {
    const schema = { schemaType: "JSON" as const, json: parseJsonSchema(JSON.stringify({ type: "object", required: ["n"] })) };
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(() => checkDatum(schema, bytes('{"n":1}'), 0, 7)).not.toThrow();
    expect(() => checkDatum(schema, bytes("{}"), 0, 2)).toThrow(/required property "n"/);
    expect(() => checkDatum(schema, bytes("{nope"), 0, 5)).toThrow(/not JSON/);
    expect(() => checkDatum(schema, Uint8Array.from([0xc3, 0x28]), 0, 2)).toThrow(/not UTF-8/);
    expect(decodeDatum(schema, bytes('xx{"n":[1]}'), 2, 11)).toEqual({ n: [1] });
  });
});
