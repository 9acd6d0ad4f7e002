import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32c } from "../../../src/protocol/crc32c.ts";

/** Bit at a time, straight from the definition: the reference the table-driven code must match. */
function crc32cBitwise(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const filled = (length: number, byte: (index: number) => number) =>
  Uint8Array.from({ length }, (_, index) => byte(index));

describe("crc32c", () => {
  it('gives the check value 0xE3069283 for "123456789"', () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
  });

  it("is 0 for no bytes", () => {
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  // RFC 3720 (iSCSI) appendix B.4 lists the CRC bytes as sent, least significant first.
  it.each([
    ["32 bytes of zeros", filled(32, () => 0x00), 0x8a9136aa],
    ["32 bytes of ones", filled(32, () => 0xff), 0x62a8ab43],
    ["32 incrementing bytes", filled(32, (i) => i), 0x46dd794e],
    ["32 decrementing bytes", filled(32, (i) => 31 - i), 0x113fdb5c],
  ])("matches RFC 3720 for %s", (_name, bytes, expected) => {
    expect(crc32c(bytes)).toBe(expected);
  });

  it("matches RFC 3720 for the iSCSI read command PDU", () => {
    const pdu = new Uint8Array(48);
    pdu.set([0x01, 0xc0], 0);
    pdu[16] = 0x14;
    pdu[22] = 0x04;
    pdu[27] = 0x14;
    pdu[31] = 0x18;
    pdu[32] = 0x28;
    pdu[40] = 0x02;
    expect(crc32c(pdu)).toBe(0xd9963a56);
  });

  it("matches the bit-at-a-time definition for any bytes and any range", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (b % (bytes.length - start + 1));
        expect(crc32c(bytes, start, end)).toBe(crc32cBitwise(bytes.subarray(start, end)));
      }),
    );
  });

  it("matches it for views at any byte offset of their buffer (the word loop reads aligned words)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(3), (bytes, shift) => {
        const buffer = new Uint8Array(bytes.length + shift);
        buffer.set(bytes, shift);
        expect(crc32c(buffer.subarray(shift))).toBe(crc32cBitwise(bytes));
      }),
    );
  });

  it("returns an unsigned 32-bit number", () => {
    const value = crc32c(filled(32, () => 0xff));
    expect(value).toBeGreaterThan(0);
    expect(Number.isInteger(value) && value <= 0xffffffff).toBe(true);
  });

  it("refuses a range outside the bytes", () => {
    const bytes = new Uint8Array(8);
    expect(() => crc32c(bytes, 0, 9)).toThrow(RangeError);
    expect(() => crc32c(bytes, -1)).toThrow(RangeError);
    expect(() => crc32c(bytes, 5, 4)).toThrow(RangeError);
    expect(() => crc32c(bytes, 0.5)).toThrow(RangeError);
  });
});
