import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  VarintError,
  readVarint,
  readVarlong,
  varintSize,
  varlongSize,
  writeVarint,
  writeVarlong,
} from "../../../src/protocol/varint.ts";

/** Zigzag then base-128 groups, in BigInt: an independent reference for both widths. */
function referenceEncoding(value: number | bigint, bits: 32 | 64): number[] {
  const v = BigInt(value);
  const width = BigInt(bits);
  const mask = (1n << width) - 1n;
  let zigzag = ((v << 1n) ^ (v >> (width - 1n))) & mask;
  const out: number[] = [];
  while (zigzag >= 0x80n) {
    out.push(Number(zigzag & 0x7fn) | 0x80);
    zigzag >>= 7n;
  }
  out.push(Number(zigzag));
  return out;
}

const hex = (bytes: number[] | Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

function encodeVarint(value: number): Uint8Array {
  const bytes = new Uint8Array(varintSize(value));
  expect(writeVarint(bytes, 0, value)).toBe(bytes.length);
  return bytes;
}

function encodeVarlong(value: number): Uint8Array {
  const bytes = new Uint8Array(varlongSize(value));
  expect(writeVarlong(bytes, 0, value)).toBe(bytes.length);
  return bytes;
}

const int32Vectors: [number, string][] = [
  [0, "00"],
  [-1, "01"],
  [1, "02"],
  [-2, "03"],
  [63, "7e"],
  [-64, "7f"],
  [64, "80 01"],
  [300, "d8 04"],
  [-8193, "81 80 01"],
  [2147483647, "fe ff ff ff 0f"],
  [-2147483648, "ff ff ff ff 0f"],
];

describe("varint (int32)", () => {
  it.each(int32Vectors)("codes %d as %s", (value, expected) => {
    expect(hex(encodeVarint(value))).toBe(expected);
    expect(readVarint(encodeVarint(value), 0)).toEqual({ value, next: varintSize(value) });
  });

  it("matches the zigzag reference for every int32", () => {
    fc.assert(
      fc.property(fc.integer(), (value) => {
        const bytes = encodeVarint(value);
        expect(hex(bytes)).toBe(hex(referenceEncoding(value, 32)));
        expect(readVarint(bytes, 0)).toEqual({ value, next: bytes.length });
      }),
    );
  });

  it("writes at a position and reads up to an end", () => {
    const bytes = new Uint8Array(6).fill(0xaa);
    expect(writeVarint(bytes, 2, 300)).toBe(4);
    expect(hex(bytes)).toBe("aa aa d8 04 aa aa");
    expect(readVarint(bytes, 2, 4)).toEqual({ value: 300, next: 4 });
    expect(() => readVarint(bytes, 2, 3)).toThrow(VarintError);
  });

  it("refuses values that are not int32 and writes past the end", () => {
    for (const value of [2 ** 31, -(2 ** 31) - 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => varintSize(value)).toThrow(RangeError);
      expect(() => writeVarint(new Uint8Array(10), 0, value)).toThrow(RangeError);
    }
    expect(() => writeVarint(new Uint8Array(1), 0, 300)).toThrow(RangeError);
  });

  it.each([
    ["no bytes", ""],
    ["a dangling continuation", "80"],
    ["a truncated 5-byte varint", "ff ff ff ff"],
    ["a continuation on the 5th byte", "80 80 80 80 80 01"],
    ["a 5th byte beyond 32 bits", "80 80 80 80 10"],
  ])("refuses %s", (_name, bytes) => {
    const input = Uint8Array.from(bytes.split(" ").filter(Boolean), (b) => Number.parseInt(b, 16));
    expect(() => readVarint(input, 0)).toThrow(VarintError);
  });

  it("accepts a non-minimal encoding, as Kafka does", () => {
    expect(readVarint(Uint8Array.of(0x80, 0x00), 0)).toEqual({ value: 0, next: 2 });
  });
});

const safe = Number.MAX_SAFE_INTEGER;
const int64Vectors: number[] = [
  0, -1, 1, 2 ** 30 - 1, -(2 ** 30), 2 ** 30, -(2 ** 30) - 1, 2 ** 31, -(2 ** 31), 2 ** 32,
  -(2 ** 32) - 1, 1_700_000_000_000, -1_700_000_000_000, 2 ** 52, -(2 ** 52), safe, -safe,
  safe - 1, -safe + 1,
];

describe("varlong (int64 within ±(2^53 − 1))", () => {
  it.each(int64Vectors)("codes %d as the reference bytes and back", (value) => {
    const bytes = encodeVarlong(value);
    expect(hex(bytes)).toBe(hex(referenceEncoding(value, 64)));
    expect(readVarlong(bytes, 0)).toEqual({ value, next: bytes.length });
  });

  it("matches the zigzag reference for every safe integer", () => {
    const values = fc.oneof(fc.maxSafeInteger(), fc.integer(), fc.integer({ min: -200, max: 200 }));
    fc.assert(
      fc.property(values, (value) => {
        const bytes = encodeVarlong(value);
        expect(hex(bytes)).toBe(hex(referenceEncoding(value, 64)));
        expect(readVarlong(bytes, 0)).toEqual({ value, next: bytes.length });
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with varint on int32 values", () => {
    fc.assert(
      fc.property(fc.integer(), (value) => {
        expect(encodeVarlong(value)).toEqual(encodeVarint(value));
      }),
    );
  });

  it("refuses values a JS number does not hold exactly", () => {
    for (const value of [2 ** 53, -(2 ** 53), 2 ** 63, 0.5, Number.NaN]) {
      expect(() => varlongSize(value)).toThrow(RangeError);
      expect(() => writeVarlong(new Uint8Array(10), 0, value)).toThrow(RangeError);
    }
    expect(() => writeVarlong(new Uint8Array(4), 0, 2 ** 40)).toThrow(RangeError);
  });

  it.each([
    ["2^53", 2n ** 53n],
    ["−2^53", -(2n ** 53n)],
    ["int64 max", 2n ** 63n - 1n],
    ["int64 min", -(2n ** 63n)],
  ])("refuses %s on the wire rather than round it", (_name, value) => {
    expect(() => readVarlong(Uint8Array.from(referenceEncoding(value, 64)), 0)).toThrow(VarintError);
  });

  it("refuses truncated and over-long input", () => {
    expect(() => readVarlong(new Uint8Array(0), 0)).toThrow(VarintError);
    expect(() => readVarlong(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80), 0)).toThrow(VarintError);
    expect(() => readVarlong(new Uint8Array(11).fill(0x80), 0)).toThrow(VarintError);
    // Ten bytes is the limit: a non-minimal zero that long is still a varlong.
    const tenBytes = new Uint8Array(10).fill(0x80);
    tenBytes[9] = 0;
    expect(readVarlong(tenBytes, 0)).toEqual({ value: 0, next: 10 });
  });

  it("refuses a read range outside the bytes", () => {
    expect(() => readVarlong(new Uint8Array(2), 0, 3)).toThrow(RangeError);
    expect(() => readVarlong(new Uint8Array(2), -1)).toThrow(RangeError);
  });
});
