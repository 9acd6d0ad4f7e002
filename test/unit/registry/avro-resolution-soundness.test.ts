import fc from "fast-check";
import { describe, it } from "vitest";
import { avroReadIssues } from "../../../src/registry/avro-compatibility.ts";
import { parseAvro } from "../../../src/registry/avro-parse.ts";
import { simpleName, type AvroType } from "../../../src/registry/avro-types.ts";

/**
 * The Avro compatibility rules checked against data: when a reader is found to read a writer,
 * every datum the writer can write resolves under the reader. The oracle below resolves a datum
 * as the specification's "Schema Resolution" says, value by value, independently of the rules'
 * code; data are drawn from the writer's schema.
 */

type Datum = { branch?: number; value: unknown };

/** Resolves a datum the writer wrote; false when a reader could not read it. */
function resolves(reader: AvroType, writer: AvroType, datum: Datum, depth = 0): boolean {
  if (depth > 20) return true;
  if (writer.kind === "union") return resolves(reader, writer.branches[datum.branch!]!, datum.value as Datum, depth + 1);
  if (reader.kind === "union") return reader.branches.some((branch) => resolves(branch, writer, datum, depth + 1));
  if (reader.kind === "primitive" && writer.kind === "primitive") {
    const promotions: Record<string, string[]> = { int: ["long", "float", "double"], long: ["float", "double"], float: ["double"], string: ["bytes"], bytes: ["string"] };
    return reader.type === writer.type || (promotions[writer.type] ?? []).includes(reader.type);
  }
  if (reader.kind !== writer.kind) return false;
  switch (writer.kind) {
    case "array":
      return (datum.value as Datum[]).every((item) => resolves((reader as typeof writer).items, writer.items, item, depth + 1));
    case "map":
      return (datum.value as Datum[]).every((item) => resolves((reader as typeof writer).values, writer.values, item, depth + 1));
    case "enum": {
      const r = reader as typeof writer;
      if (simpleName(r.name) !== simpleName(writer.name) && !r.aliases.includes(writer.name)) return false;
      return r.symbols.includes(datum.value as string) || r.default !== undefined;
    }
    case "record": {
      const r = reader as typeof writer;
      if (simpleName(r.name) !== simpleName(writer.name) && !r.aliases.includes(writer.name)) return false;
      const values = datum.value as Datum[];
      return r.fields.every((field) => {
        const index = writer.fields.findIndex((written) => written.name === field.name || field.aliases.includes(written.name));
        return index >= 0 ? resolves(field.type, writer.fields[index]!.type, values[index]!, depth + 1) : field.default !== undefined;
      });
    }
    default:
      return true;
  }
}

/** Data the writer's schema can write: a union's branch chosen, items and fields drawn recursively. */
function datumOf(type: AvroType, depth = 0): fc.Arbitrary<Datum> {
  switch (type.kind) {
    case "union":
      return fc.nat(type.branches.length - 1).chain((branch) => datumOf(type.branches[branch]!, depth + 1).map((value) => ({ branch, value })));
    case "array":
    case "map":
      return fc.array(datumOf(type.kind === "array" ? type.items : type.values, depth + 1), { maxLength: depth > 3 ? 0 : 2 }).map((value) => ({ value }));
    case "enum":
      return fc.constantFrom(...type.symbols).map((value) => ({ value }));
    case "record":
      return fc.tuple(...type.fields.map((field) => datumOf(field.type, depth + 1))).map((value) => ({ value }));
    default:
      return fc.constant({ value: null });
  }
}

const primitive = fc.constantFrom("null", "int", "long", "double", "string", "bytes");
const defaults: Record<string, unknown> = { null: null, int: 0, long: 0, double: 0, string: "", bytes: "" };
/** Schemas over one record name, one enum name and few field names, so that readers and writers often match. */
const schema = fc.letrec<{ type: unknown }>((tie) => ({
    type: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      primitive,
      fc.record({ type: fc.constant("array"), items: primitive }),
      fc.record({ type: fc.constant("map"), values: primitive }),
      fc.uniqueArray(primitive, { minLength: 1, maxLength: 3 }),
      fc.subarray(["A", "B", "C"], { minLength: 1 }).chain((symbols) =>
        fc.option(fc.constantFrom(...symbols), { nil: undefined }).map((fallback) => ({ type: "enum", name: "E", symbols, ...(fallback ? { default: fallback } : {}) })),
      ),
      fc.array(fc.tuple(primitive, fc.boolean()), { maxLength: 3 }).map((fields) => ({
        type: "record",
        name: "R",
        fields: fields.map(([type, withDefault], index) => ({ name: ["a", "b", "c"][index]!, type, ...(withDefault ? { default: defaults[type] } : {}) })),
      })),
    fc.record({ type: fc.constant("array"), items: tie("type") }),
  ),
})).type;

describe("Avro compatibility against data", () => {
  it("is sound: when the reader is found to read the writer, every datum the writer writes resolves", () => {
    fc.assert(
      fc.property(schema, schema, (readerJson, writerJson) => {
        const reader = parseAvro(JSON.stringify(readerJson)).type;
        const writer = parseAvro(JSON.stringify(writerJson)).type;
        if (avroReadIssues(reader, writer).length > 0) return true;
        fc.assert(fc.property(datumOf(writer), (datum) => resolves(reader, writer, datum)), { numRuns: 20 });
        return true;
      }),
      { numRuns: 1_000 },
    );
  });

  it("finds pairs that read each other often enough to mean something", () => {
    let compatible = 0;
    fc.assert(
      fc.property(schema, schema, (readerJson, writerJson) => {
        if (avroReadIssues(parseAvro(JSON.stringify(readerJson)).type, parseAvro(JSON.stringify(writerJson)).type).length === 0) compatible++;
        return true;
      }),
      { numRuns: 1_000 },
    );
    if (compatible < 50) throw new Error(`only ${compatible} of 1,000 pairs were compatible`);
  });
});
