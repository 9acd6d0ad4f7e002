import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { avroReadIssues } from "../../../src/registry/avro-compatibility.ts";
import { parseAvro } from "../../../src/registry/avro-parse.ts";
import type { AvroType } from "../../../src/registry/avro-types.ts";

/**
 * Avro's schema resolution rules (Avro 1.11 specification, "Schema Resolution"), each case
 * named after the rule it tests; then properties the rules must hold for any schema.
 */

const avro = (schema: unknown): AvroType => parseAvro(JSON.stringify(schema)).type;
const reads = (reader: unknown, writer: unknown): boolean => avroReadIssues(avro(reader), avro(writer)).length === 0;
const kinds = (reader: unknown, writer: unknown): string[] => avroReadIssues(avro(reader), avro(writer)).map((issue) => issue.kind);
const record = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ type: "record", name: "R", namespace: "n", fields, ...extra });

describe("Avro schema resolution", () => {
  it("promotes int to long, float, double; long to float, double; float to double; string and bytes both ways", () => {
    for (const [writer, reader] of [["int", "long"], ["int", "float"], ["int", "double"], ["long", "float"], ["long", "double"], ["float", "double"], ["string", "bytes"], ["bytes", "string"]]) {
      expect(reads(reader, writer), `${writer} → ${reader}`).toBe(true);
    }
    for (const [writer, reader] of [["long", "int"], ["double", "float"], ["int", "string"], ["boolean", "int"], ["null", "string"]]) {
      expect(kinds(reader, writer), `${writer} → ${reader}`).toEqual(["TYPE_MISMATCH"]);
    }
  });

  it("a reader's field the writer lacks takes its default, and fails without one", () => {
    const old = record([{ name: "a", type: "int" }]);
    expect(reads(record([{ name: "a", type: "int" }, { name: "b", type: "string", default: "" }]), old)).toBe(true);
    const issues = avroReadIssues(avro(record([{ name: "a", type: "int" }, { name: "b", type: "string" }])), avro(old));
    expect(issues).toEqual([expect.objectContaining({ kind: "READER_FIELD_MISSING_DEFAULT_VALUE", location: "/fields/1" })]);
  });

  it("a writer's field the reader lacks is skipped", () => {
    expect(reads(record([{ name: "a", type: "int" }]), record([{ name: "a", type: "int" }, { name: "b", type: "string" }]))).toBe(true);
  });

  it("a reader's field matches a writer's field by one of its aliases (a rename)", () => {
    expect(reads(record([{ name: "fullName", type: "string", aliases: ["name"] }]), record([{ name: "name", type: "string" }]))).toBe(true);
    expect(kinds(record([{ name: "fullName", type: "string" }]), record([{ name: "name", type: "string" }]))).toEqual(["READER_FIELD_MISSING_DEFAULT_VALUE"]);
  });

  it("named types match by unqualified name, or by the reader's alias of the writer's full name", () => {
    expect(reads({ type: "record", name: "a.R", fields: [] }, { type: "record", name: "b.R", fields: [] })).toBe(true);
    expect(kinds({ type: "record", name: "S", fields: [] }, { type: "record", name: "R", fields: [] })).toEqual(["NAME_MISMATCH"]);
    expect(reads({ type: "record", name: "S", aliases: ["old.R"], fields: [] }, { type: "record", name: "old.R", fields: [] })).toBe(true);
  });

  it("an enum reads the writer's symbols it has; a missing one needs the reader's enum default", () => {
    const writer = { type: "enum", name: "E", symbols: ["A", "B", "C"] };
    expect(reads({ type: "enum", name: "E", symbols: ["A", "B", "C", "D"] }, writer)).toBe(true);
    expect(kinds({ type: "enum", name: "E", symbols: ["A", "B"] }, writer)).toEqual(["MISSING_ENUM_SYMBOLS"]);
    expect(reads({ type: "enum", name: "E", symbols: ["A", "B", "UNKNOWN"], default: "UNKNOWN" }, writer)).toBe(true);
  });

  it("fixed types need the same size", () => {
    expect(kinds({ type: "fixed", name: "F", size: 4 }, { type: "fixed", name: "F", size: 8 })).toEqual(["FIXED_SIZE_MISMATCH"]);
  });

  it("arrays and maps resolve their items and values", () => {
    expect(reads({ type: "array", items: "long" }, { type: "array", items: "int" })).toBe(true);
    expect(kinds({ type: "map", values: "int" }, { type: "map", values: "long" })).toEqual(["TYPE_MISMATCH"]);
    expect(kinds({ type: "map", values: "int" }, { type: "array", items: "int" })).toEqual(["TYPE_MISMATCH"]);
  });

  it("unions: a reader's union reads a writer's type one of its branches reads; a writer's union needs every branch read", () => {
    expect(reads(["null", "string"], "string")).toBe(true);
    expect(reads(["null", "long"], "int")).toBe(true); // through a promotion
    expect(kinds(["null", "string"], "int")).toEqual(["MISSING_UNION_BRANCH"]);
    expect(kinds("string", ["null", "string"])).toEqual(["TYPE_MISMATCH"]);
    expect(reads(["null", "string", "int"], ["null", "string"])).toBe(true);
    expect(kinds(["null", "string"], ["null", "string", "int"])).toEqual(["MISSING_UNION_BRANCH"]);
  });

  it("recursive types compare once per pair of types", () => {
    const list = (valueType: string) => ({ type: "record", name: "List", fields: [{ name: "value", type: valueType }, { name: "next", type: ["null", "List"] }] });
    expect(reads(list("long"), list("int"))).toBe(true);
    expect(kinds(list("int"), list("long"))).toEqual(["TYPE_MISMATCH"]);
  });

  // Confluent's documentation's examples of each level, as facts about Avro.
  it("adding a field with a default is backward and forward compatible; without a default, forward only", () => {
    const v1 = record([{ name: "f1", type: "string" }]);
    const withDefault = record([{ name: "f1", type: "string" }, { name: "f2", type: "string", default: "foo" }]);
    const withoutDefault = record([{ name: "f1", type: "string" }, { name: "f2", type: "string" }]);
    expect(reads(withDefault, v1) && reads(v1, withDefault)).toBe(true);
    expect(reads(withoutDefault, v1)).toBe(false); // not BACKWARD
    expect(reads(v1, withoutDefault)).toBe(true); // FORWARD
  });

  it("deleting a field is backward compatible; forward only when the old field had a default", () => {
    const v1 = record([{ name: "f1", type: "string" }, { name: "f2", type: "string" }]);
    const v1WithDefault = record([{ name: "f1", type: "string" }, { name: "f2", type: "string", default: "" }]);
    const v2 = record([{ name: "f1", type: "string" }]);
    expect(reads(v2, v1)).toBe(true);
    expect(reads(v1, v2)).toBe(false);
    expect(reads(v1WithDefault, v2)).toBe(true);
  });
});

// ---- Properties -----------------------------------------------------------------------------

const primitive = fc.constantFrom("null", "boolean", "int", "long", "float", "double", "bytes", "string");
const defaults: Record<string, unknown> = { null: null, boolean: false, int: 0, long: 0, float: 0, double: 0, bytes: "", string: "" };

let names = 0;
/** Schemas as JSON: primitives, arrays, maps, unions of distinct primitives, records with fields of those. */
const schema: fc.Arbitrary<unknown> = fc.letrec<{ type: unknown }>((tie) => ({
  type: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    primitive,
    fc.record({ type: fc.constant("array"), items: tie("type") }),
    fc.record({ type: fc.constant("map"), values: tie("type") }),
    fc.uniqueArray(primitive, { minLength: 1, maxLength: 4 }),
    fc.array(tie("type"), { maxLength: 4 }).map((types) => ({ type: "record", name: `R${names++}`, fields: types.map((type, index) => ({ name: `f${index}`, type })) })),
  ),
})).type;

/** A record of primitive fields, some with defaults. */
const flatRecord = fc.array(fc.tuple(primitive, fc.boolean()), { minLength: 1, maxLength: 6 }).map((fields) =>
  fields.map(([type, hasDefault], index) => ({ name: `f${index}`, type, ...(hasDefault ? { default: defaults[type] } : {}) })),
);

describe("properties of Avro schema resolution", () => {
  it("every schema reads what it wrote itself", () => {
    fc.assert(fc.property(schema, (json) => avroReadIssues(avro(json), avro(json)).length === 0));
  });

  it("a field added with a default keeps both directions readable (FULL)", () => {
    fc.assert(
      fc.property(flatRecord, primitive, (fields, added) => {
        const before = record(fields);
        const after = record([...fields, { name: "added", type: added, default: defaults[added] }]);
        return reads(after, before) && reads(before, after);
      }),
    );
  });

  it("a field removed is always backward, and forward exactly when it had a default", () => {
    fc.assert(
      fc.property(flatRecord, fc.nat(), (fields, pick) => {
        const removed = fields[pick % fields.length]!;
        const after = record(fields.filter((field) => field !== removed));
        const before = record(fields);
        return reads(after, before) && reads(before, after) === ("default" in removed);
      }),
    );
  });

  it("a union reads what one of its branches, or a union of some of them, wrote", () => {
    fc.assert(
      fc.property(fc.uniqueArray(primitive, { minLength: 2, maxLength: 5 }), (branches) => {
        const [first, ...rest] = branches;
        const wider = avro(branches);
        return avroReadIssues(wider, avro(first)).length === 0 && avroReadIssues(wider, avro(rest)).length === 0;
      }),
    );
  });

  it("reading is transitive along promotions (int → long → float → double)", () => {
    const chain = ["int", "long", "float", "double"];
    fc.assert(
      fc.property(fc.nat(3), fc.nat(3), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        return reads(chain[high], chain[low]) && (low === high || !reads(chain[low], chain[high]));
      }),
    );
  });
});
