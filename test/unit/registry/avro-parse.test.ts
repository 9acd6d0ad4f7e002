import { describe, expect, it } from "vitest";
import { canonicalForm, normalizedForm } from "../../../src/registry/avro-forms.ts";
import { parseAvro } from "../../../src/registry/avro-parse.ts";
import { RegistryError } from "../../../src/registry/registry-errors.ts";

const parse = (schema: unknown) => parseAvro(JSON.stringify(schema));

function refusal(schema: unknown): string {
  try {
    parse(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).errorCode).toBe(42201);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(schema)}`);
}

describe("parsing Avro schemas", () => {
  it("takes primitives by name and as {type}", () => {
    expect(canonicalForm(parse("string").type)).toBe('"string"');
    expect(canonicalForm(parse({ type: "long", logicalType: "timestamp-millis" }).type)).toBe('"long"');
  });

  it("resolves names in the enclosing namespace, and a name with a dot as a full name", () => {
    const { type } = parse({
      type: "record",
      name: "Order",
      namespace: "shop",
      fields: [
        { name: "status", type: { type: "enum", name: "Status", symbols: ["NEW", "PAID"] } },
        { name: "previous", type: ["null", "Status"], default: null },
        { name: "money", type: { type: "fixed", name: "other.Money", size: 8 } },
        { name: "again", type: "other.Money" },
      ],
    });
    expect(canonicalForm(type)).toBe(
      '{"name":"shop.Order","type":"record","fields":[{"name":"status","type":{"name":"shop.Status","type":"enum","symbols":["NEW","PAID"]}},' +
        '{"name":"previous","type":["null","shop.Status"]},{"name":"money","type":{"name":"other.Money","type":"fixed","size":8}},{"name":"again","type":"other.Money"}]}',
    );
  });

  it("takes a recursive record (a field naming its own record)", () => {
    const { type } = parse({ type: "record", name: "Node", fields: [{ name: "next", type: ["null", "Node"], default: null }] });
    expect(canonicalForm(type)).toBe('{"name":"Node","type":"record","fields":[{"name":"next","type":["null","Node"]}]}');
  });

  it("refuses what Avro's parser refuses, saying why", () => {
    expect(refusal("nothing")).toMatch(/undefined name/);
    expect(refusal({ type: "record", name: "1bad", fields: [] })).toMatch(/not a valid Avro name/);
    expect(refusal({ type: "record", name: "R", fields: [{ name: "a", type: "int" }, { name: "a", type: "long" }] })).toMatch(/two fields named a/);
    expect(refusal({ type: "enum", name: "E", symbols: ["A", "A"] })).toMatch(/symbol twice/);
    expect(refusal({ type: "fixed", name: "F", size: -1 })).toMatch(/size/);
    expect(refusal(["int", "int"])).toMatch(/union holds int twice/);
    expect(refusal(["int", ["string"]])).toMatch(/another union/);
    expect(refusal({ type: "array" })).toMatch(/items/);
    expect(refusal({ type: "record", name: "R", fields: [{ name: "a", type: "int", default: "x" }] })).toMatch(/default of field R.a/);
    expect(refusal({ type: "record", name: "R", fields: [{ name: "a", type: { type: "enum", name: "R", symbols: ["A"] } }] })).toMatch(/defined twice/);
    expect(() => parseAvro("{not json")).toThrow(/not JSON/);
  });

  it("checks defaults by the type they default (Avro's table of JSON encodings)", () => {
    const record = (type: unknown, value: unknown) => ({ type: "record", name: "R", fields: [{ name: "f", type, default: value }] });
    for (const [type, value] of [
      ["null", null],
      ["boolean", true],
      ["int", 2147483647],
      ["long", 2 ** 40],
      ["double", 1.5],
      ["bytes", "\u00ff"],
      ["string", "text"],
      [{ type: "fixed", name: "F", size: 2 }, "ab"],
      [{ type: "array", items: "int" }, [1, 2]],
      [{ type: "map", values: "string" }, { a: "b" }],
      [["null", "string"], null],
      [["null", "string"], "any branch, as Avro's Java parser takes it"],
    ] as const) {
      expect(() => parse(record(type, value)), JSON.stringify(type)).not.toThrow();
    }
    for (const [type, value] of [
      ["int", 2 ** 31],
      ["int", 1.5],
      ["bytes", "\u0100"],
      [{ type: "fixed", name: "F", size: 2 }, "abc"],
      [["null", "string"], 3],
    ] as const) {
      expect(() => parse(record(type, value)), JSON.stringify([type, value])).toThrow(RegistryError);
    }
  });

  it("uses the named types its references define", () => {
    const referenced = parseAvro(JSON.stringify({ type: "record", name: "common.Address", fields: [{ name: "city", type: "string" }] }));
    const { type } = parseAvro(JSON.stringify({ type: "record", name: "Customer", fields: [{ name: "home", type: "common.Address" }] }), referenced.defines);
    expect(canonicalForm(type)).toContain('"name":"common.Address"');
    expect(refusal({ type: "record", name: "Customer", fields: [{ name: "home", type: "common.Address" }] })).toMatch(/undefined name/);
  });
});

describe("the normalized form", () => {
  it("is one text for schemas that differ in layout, key order, namespace spelling and primitive shorthand", () => {
    const a = parse({ type: "record", name: "Order", namespace: "shop", fields: [{ name: "id", type: { type: "long" }, default: 0, doc: "the id" }] });
    const b = parse({ fields: [{ doc: "the id", default: 0, type: "long", name: "id" }], name: "shop.Order", type: "record" });
    expect(normalizedForm(a.type)).toBe(normalizedForm(b.type));
    expect(normalizedForm(a.type)).toBe('{"name":"shop.Order","type":"record","fields":[{"name":"id","type":"long","default":0,"doc":"the id"}]}');
  });

  it("keeps what the canonical form strips: defaults, aliases, logical types", () => {
    const { type } = parse({ type: "record", name: "R", aliases: ["Old"], fields: [{ name: "at", type: { type: "long", logicalType: "timestamp-millis" }, aliases: ["when"], default: 0 }] });
    expect(normalizedForm(type)).toBe('{"name":"R","type":"record","fields":[{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"},"default":0,"aliases":["when"]}],"aliases":["Old"]}');
    expect(canonicalForm(type)).toBe('{"name":"R","type":"record","fields":[{"name":"at","type":"long"}]}');
  });

  it("writes the types references define by name", () => {
    const referenced = parseAvro(JSON.stringify({ type: "enum", name: "E", symbols: ["A"] }));
    const { type } = parseAvro(JSON.stringify({ type: "record", name: "R", fields: [{ name: "e", type: "E" }] }), referenced.defines);
    expect(normalizedForm(type, referenced.defines.keys())).toBe('{"name":"R","type":"record","fields":[{"name":"e","type":"E"}]}');
  });
});
