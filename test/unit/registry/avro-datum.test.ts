/**
 * The Avro datum reader (src/registry/avro-datum.ts): every type of Avro's binary encoding read
 * against a writer's schema, built as plain JSON, and what it refuses — truncated data, bytes
 * left over, lengths and counts past what the datum holds, out-of-range indexes, nesting and
 * value bounds — each naming where in the datum.
 */
import { describe, expect, it } from "vitest";
import { avroDatumValuesPerByte, avroDatumValuesSlack, schemaDatumDepthMax } from "../../../src/limits.ts";
import { readAvroDatum } from "../../../src/registry/avro-datum.ts";
import { parseAvro } from "../../../src/registry/avro-parse.ts";
import { DatumError } from "../../../src/registry/datum-error.ts";

/** Avro's zigzag varint of a long. */
function long(value: number | bigint): number[] {
  let raw = BigInt(value) >= 0n ? BigInt(value) << 1n : ((-BigInt(value)) << 1n) - 1n;
  const out: number[] = [];
  do {
    let byte = Number(raw & 0x7fn);
    raw >>= 7n;
    if (raw > 0n) byte |= 0x80;
    out.push(byte);
  } while (raw > 0n);
  return out;
}

const utf8 = new TextEncoder();
const str = (text: string) => [...long(utf8.encode(text).length), ...utf8.encode(text)];
const double = (value: number) => [...new Uint8Array(new Float64Array([value]).buffer)];
const float = (value: number) => [...new Uint8Array(new Float32Array([value]).buffer)];

function read(schema: unknown, bytes: number[], build = true): unknown {
  const { type } = parseAvro(JSON.stringify(schema));
  return readAvroDatum(type, Uint8Array.from(bytes), 0, bytes.length, build);
}

function refusal(schema: unknown, bytes: number[]): DatumError {
  try {
    read(schema, bytes);
  } catch (error) {
    if (error instanceof DatumError) return error;
    throw error;
  }
  throw new Error("the datum was read");
}

const order = {
  type: "record",
  name: "Order",
  namespace: "shop",
  fields: [
    { name: "id", type: "long" },
    { name: "paid", type: "boolean" },
    { name: "count", type: "int" },
    { name: "price", type: "double" },
    { name: "weight", type: "float" },
    { name: "note", type: ["null", "string"] },
    { name: "tags", type: { type: "array", items: "string" } },
    { name: "attrs", type: { type: "map", values: "int" } },
    { name: "state", type: { type: "enum", name: "State", symbols: ["NEW", "PAID"] } },
    { name: "hash", type: { type: "fixed", name: "Hash", size: 2 } },
    { name: "blob", type: "bytes" },
    { name: "at", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "amount", type: { type: "bytes", logicalType: "decimal", precision: 4, scale: 2 } },
    { name: "nothing", type: "null" },
  ],
};

describe("Avro datum reader", () => {
  it("reads every type, logical types as their underlying type, into plain JSON", () => {
    const bytes = [
      ...long(-42), 1, ...long(7), ...double(2.5), ...float(1.5), ...long(1), ...str("hi"),
      ...long(2), ...str("a"), ...str("b"), ...long(0), // array in one block
      ...long(-1), ...long(str("k").length + long(9).length), ...str("k"), ...long(9), ...long(0), // map, a block with its size
      ...long(1), 0xab, 0xcd, ...long(3), 1, 2, 3, ...long(1_700_000_000_000), ...long(2), 0x01, 0x00,
    ];
    expect(read(order, bytes)).toEqual({
      id: -42, paid: true, count: 7, price: 2.5, weight: 1.5, note: "hi", tags: ["a", "b"], attrs: { k: 9 },
      state: "PAID", hash: "q80=", blob: "AQID", at: 1_700_000_000_000, amount: "AQA=", nothing: null,
    });
    // Without building, the same datum is checked and nothing returned.
    expect(read(order, bytes, false)).toBeUndefined();
  });

  it("gives longs past 2^53 exactly, as strings, and non-finite floats as strings", () => {
    expect(read("long", long(2n ** 62n))).toBe(String(2n ** 62n));
    expect(read("long", long(-(2n ** 63n)))).toBe(String(-(2n ** 63n)));
    expect(read("long", long(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(read("double", double(Number.NaN))).toBe("NaN");
    expect(read("float", float(-Infinity))).toBe("-Infinity");
  });

  it("keeps a map key named __proto__ as a key", () => {
    const value = read({ type: "map", values: "int" }, [...long(1), ...str("__proto__"), ...long(1), ...long(0)]) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
  });

  it("reads recursive records", () => {
    const list = { type: "record", name: "Node", fields: [{ name: "v", type: "int" }, { name: "next", type: ["null", "Node"] }] };
    expect(read(list, [...long(1), ...long(1), ...long(2), ...long(0)])).toEqual({ v: 1, next: { v: 2, next: null } });
  });

  it("refuses data that does not conform, naming where", () => {
    const cases: [unknown, number[], string, RegExp][] = [
      ["boolean", [2], "/", /byte 2, not 0 or 1/],
      ["int", long(2 ** 31), "/", /outside 32 bits/],
      ["long", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], "/", /longer than 64 bits/],
      ["string", [...long(2), 0xc3, 0x28], "/", /not UTF-8/],
      ["string", long(-1), "/", /negative/],
      [{ type: "enum", name: "E", symbols: ["A"] }, long(1), "/", /no symbol at index 1/],
      [["null", "int"], long(2), "/", /no branch at index 2/],
      [{ type: "record", name: "R", fields: [{ name: "ab", type: { type: "array", items: "boolean" } }] }, [...long(2), 1, 5, 0], "/ab/1", /byte 5/],
      [{ type: "map", values: "boolean" }, [...long(-1), ...long(9), ...str("x"), 1, ...long(0)], "/", /more than the \d+ bytes left/],
      [{ type: "map", values: "boolean" }, [...long(-1), ...long(1), ...str("x"), 1, ...long(0)], "/", /take 3 bytes, not the 1/],
      ["int", [...long(1), 0], "/", /1 bytes follow the datum/],
    ];
    for (const [schema, bytes, path, reason] of cases) {
      const error = refusal(schema, bytes);
      expect(error.message, JSON.stringify(schema)).toMatch(reason);
      expect(error.message.startsWith(`at ${path}:`), error.message).toBe(true);
    }
  });

  it("refuses truncated data of every kind", () => {
    const full = [...long(5), 1, ...long(7), ...double(2.5), ...float(1.5), ...long(1), ...str("hi"), ...long(0), ...long(0), ...long(0), 1, 2, ...long(0), ...long(0), ...long(0)];
    for (let length = 0; length < full.length; length++) {
      const error = refusal(order, full.slice(0, length));
      expect(error.message, `at ${length} bytes`).toMatch(/ends inside|more than the \d+ bytes left/);
    }
    expect(read(order, full)).toMatchObject({ id: 5, note: "hi" });
  });

  it("bounds what lengths and counts read off the wire may ask for", () => {
    // A string claiming 2^40 bytes in a 7-byte datum: refused before anything is taken.
    expect(refusal("string", long(2 ** 40)).message).toMatch(/more than the 0 bytes left/);
    // Zero-byte items: a count of billions in a few bytes is refused by the values bound, not looped through.
    const nulls = { type: "array", items: "null" };
    expect(refusal(nulls, [...long(2 ** 40), ...long(0)]).message).toMatch(/more than 1038 values, 2 per byte/);
    // Within the bound, by the datum's size: its slack plus avroDatumValuesPerByte per byte.
    const atBound = avroDatumValuesSlack + avroDatumValuesPerByte * (long(avroDatumValuesSlack).length + 1);
    const countBytes = long(atBound).length; // the same length as the slack's count (2 bytes)
    expect(countBytes).toBe(long(avroDatumValuesSlack).length);
    expect((read(nulls, [...long(atBound), ...long(0)]) as unknown[]).length).toBe(atBound);
    expect(refusal(nulls, [...long(atBound + 1), ...long(0)]).message).toMatch(/more than \d+ values/);
    // Nesting past the bound (a recursive record nested deeper): refused, not a stack overflow.
    const list = { type: "record", name: "Node", fields: [{ name: "next", type: ["null", "Node"] }] };
    const deep = [...Array.from({ length: schemaDatumDepthMax }, () => long(1)).flat(), ...long(0)];
    expect(refusal(list, deep).message).toMatch(/nests deeper than/);
  });
});
