import { describe, expect, it } from "vitest";
import { checkDatum, decodeDatum } from "../../../../src/registry/datum-read.ts";
import { DatumError } from "../../../../src/registry/datum-error.ts";
import { parseProtobuf } from "../../../../src/registry/protobuf/proto-schema.ts";

/** Protobuf's binary encoding, written by hand: a tag, a varint, a length-delimited value. */
function varint(value: number | bigint): number[] {
  let big = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (big >= 0x80n) {
    out.push(Number(big & 0x7fn) | 0x80);
    big >>= 7n;
  }
  return [...out, Number(big)];
}
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const len = (field: number, bytes: number[]) => [...tag(field, 2), ...varint(bytes.length), ...bytes];
const text = (value: string) => [...new TextEncoder().encode(value)];
const datum = (...parts: number[][]) => Uint8Array.from(parts.flat());

const schema = parseProtobuf(`syntax = "proto3"; package shop;
import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  repeated Line lines = 2;
  map<string, int64> counts = 3;
  google.protobuf.Timestamp at = 4;
  oneof payment { string card = 5; bytes token = 6; }
  optional int32 priority = 7;
  Kind kind = 8;
  repeated sint32 deltas = 9;
  uint64 big = 10;
  double ratio = 11;
  fixed32 crc = 12;
  message Line { sint32 quantity = 1; }
  enum Kind { UNKNOWN = 0; RUSH = 1; }
}`, []);

const decode = (bytes: Uint8Array) => decodeDatum(schema, bytes, 0, bytes.length);
function refusal(bytes: Uint8Array, parsed = schema): DatumError {
  try {
    checkDatum(parsed, bytes, 0, bytes.length);
  } catch (error) {
    expect(error).toBeInstanceOf(DatumError);
    return error as DatumError;
  }
  throw new Error("the datum was read");
}

describe("Protobuf data in Confluent's wire format", () => {
  it("reads the message indexes (0: the first message) and the message as JSON: scalars, nested and well-known messages, maps, oneofs, enums, packed repeated", () => {
    const ratio = new Uint8Array(new Float64Array([0.5]).buffer);
    const bytes = datum(
      [0], // message indexes: the first message
      len(1, text("o-1")),
      len(2, [...tag(1, 0), ...varint(3)]), // quantity -2 in zigzag
      len(2, []),
      len(3, [...len(1, text("sku")), ...tag(2, 0), ...varint(5)]),
      len(4, [...tag(1, 0), ...varint(1_700_000_000)]),
      len(5, text("visa")),
      tag(7, 0), varint(7),
      tag(8, 0), varint(1),
      len(9, [...varint(1), ...varint(4)]), // packed: -1, 2
      tag(9, 0), varint(5), // and one unpacked: -3
      tag(10, 0), varint(2n ** 63n),
      tag(11, 1), [...ratio],
      tag(12, 5), [1, 0, 0, 0],
      tag(99, 0), varint(1), // an unknown field: skipped
    );
    expect(decode(bytes)).toEqual({
      id: "o-1",
      lines: [{ quantity: -2 }, {}],
      counts: { sku: 5 },
      at: { seconds: 1_700_000_000 },
      card: "visa",
      priority: 7,
      kind: "RUSH",
      deltas: [-1, 2, -3],
      big: "9223372036854775808",
      ratio: 0.5,
      crc: 1,
    });
  });

  it("message indexes name a nested message; a oneof keeps its last member; an enum number outside the enum reads as the number", () => {
    expect(decode(datum(varint(4), varint(0), varint(0), tag(1, 0), varint(7)))).toEqual({ quantity: -4 }); // [0, 0]: Order.Line
    expect(decode(datum([0], len(5, text("visa")), len(6, [1, 2])))).toEqual({ token: "AQI=" });
    expect(decode(datum([0], tag(8, 0), varint(9)))).toEqual({ kind: 9 });
  });

  it("refuses what does not conform, naming where", () => {
    expect(refusal(datum(varint(2), varint(2)))).toMatchObject({ reason: "the message indexes [1] name no message of the schema" });
    expect(refusal(datum([0], tag(1, 0), varint(1)))).toMatchObject({ path: "/id", reason: expect.stringMatching(/wire type 0 where string/) });
    expect(refusal(datum([0], tag(1, 2), varint(10), text("abc")))).toMatchObject({ path: "/id", reason: expect.stringMatching(/ends inside a string of 10 bytes/) });
    expect(refusal(datum([0], len(1, [0xff, 0xfe])))).toMatchObject({ path: "/id", reason: "a proto3 string is not UTF-8" });
    expect(refusal(datum([0], len(2, [...tag(1, 2), ...varint(1), 0])))).toMatchObject({ path: "/lines/0/quantity" });
    expect(refusal(datum([0], tag(7, 0)))).toMatchObject({ reason: "the datum ends inside a varint" });
    expect(refusal(datum([0], tag(3, 7)))).toMatchObject({ path: "/counts" });
    const proto2 = parseProtobuf('syntax = "proto2"; message M { required int32 a = 1; optional string b = 2; }', []);
    expect(refusal(datum([0], len(2, text("x"))), proto2)).toMatchObject({ path: "/a", reason: "required field a is missing" });
    expect(() => checkDatum(proto2, datum([0], tag(1, 0), varint(1)), 0, 3)).not.toThrow();
  });

  it("bounds nesting: a recursive message deeper than the limit is refused", () => {
    const tree = parseProtobuf('syntax = "proto3"; message Node { Node child = 1; }', []);
    let inner: number[] = [];
    for (let depth = 0; depth < 300; depth += 1) inner = len(1, inner);
    expect(refusal(datum([0], inner), tree).reason).toMatch(/schemaDatumDepthMax/);
  });
});
