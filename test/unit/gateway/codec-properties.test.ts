/**
 * Properties of the gateway's codec over every layout and version it serves: any request or
 * response encodes and decodes back to the same bytes; every truncation of one is an error
 * value; corrupted bytes and arbitrary frames never throw; frames come out whole however the
 * socket splits them, and a frame over the bound is refused before it is buffered.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { FrameReader } from "../../../src/gateway/protocol/frames.ts";
import { readRequest, readResponse, writeRequest, writeResponse } from "../../../src/gateway/protocol/messages.ts";
import { ByteReader, ByteWriter } from "../../../src/gateway/protocol/primitives.ts";
import { inVersions, type FieldSpec, type MessageSchema, type PrimitiveType } from "../../../src/gateway/protocol/schema.ts";

const int = (bits: number) => fc.integer({ min: -(2 ** (bits - 1)), max: 2 ** (bits - 1) - 1 });
const bytes = fc.uint8Array({ maxLength: 12 });

function primitive(type: PrimitiveType, nullable: boolean): fc.Arbitrary<unknown> {
  const base: Record<PrimitiveType, fc.Arbitrary<unknown>> = {
    bool: fc.boolean(),
    int8: int(8),
    int16: int(16),
    uint16: fc.integer({ min: 0, max: 65_535 }),
    int32: int(32),
    uint32: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    int64: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    float64: fc.double({ noNaN: true }),
    string: fc.string({ maxLength: 8, unit: "grapheme" }),
    bytes,
    records: bytes,
    uuid: fc.uint8Array({ minLength: 16, maxLength: 16 }),
  };
  return nullable ? fc.option(base[type], { nil: null }) : base[type];
}

/** A value for every field `fields` has at `version` (tagged ones sometimes absent). */
function structOf(fields: readonly FieldSpec[], version: number, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, type, versions, extra = {}] of fields) {
    if (!inVersions(versions, version)) continue;
    const nullable = inVersions(extra.nullable, version);
    const array = type.startsWith("[]");
    const element = type.endsWith("struct") ? structOf(extra.fields ?? [], version, depth + 1) : primitive(type.replace("[]", "") as PrimitiveType, nullable && !array);
    let value: fc.Arbitrary<unknown> = array ? fc.array(element, { maxLength: depth > 1 ? 1 : 3 }) : element;
    if (array && nullable) value = fc.option(value, { nil: null });
    if (type === "struct" && nullable) value = fc.option(value, { nil: null });
    shape[name] = value;
  }
  return fc.record(shape) as fc.Arbitrary<Record<string, unknown>>;
}

const layouts = [...messageSchemas.values()].flatMap((schema: MessageSchema) =>
  Array.from({ length: schema.versions[1] - schema.versions[0] + 1 }, (_, i) => ({ schema, version: schema.versions[0] + i })),
);
const side = fc.constantFrom("request" as const, "response" as const);
const encoded = fc
  .tuple(fc.constantFrom(...layouts), side)
  .chain(([{ schema, version }, which]) => structOf(schema[which], version).map((value) => ({ schema, version, which, value })));

function encode(schema: MessageSchema, version: number, which: "request" | "response", value: Record<string, unknown>): Uint8Array {
  const writer = new ByteWriter(8);
  const codec = messageCodec(schema, version);
  if (which === "request") codec.writeRequest(writer, value);
  else codec.writeResponse(writer, value);
  return writer.finish().slice();
}

function decode(schema: MessageSchema, version: number, which: "request" | "response", data: Uint8Array) {
  const codec = messageCodec(schema, version);
  return which === "request" ? codec.readRequest(new ByteReader(data)) : codec.readResponse(new ByteReader(data));
}

// Property runs are CPU work: on a machine shared with other test runs they may take several times their usual second.
const propertyTimeoutMs = 60_000;

describe("the codec over every layout and version", { timeout: propertyTimeoutMs }, () => {
  it("encode, decode, encode gives the same bytes", () => {
    fc.assert(
      fc.property(encoded, ({ schema, version, which, value }) => {
        const first = encode(schema, version, which, value);
        const decoded = decode(schema, version, which, first);
        if (!decoded.ok) throw new Error(`${schema.name} v${version} ${which}: ${decoded.error}`);
        expect(encode(schema, version, which, decoded.value)).toEqual(first);
      }),
      { numRuns: 800 },
    );
  });

  it("every truncation is an error value", () => {
    fc.assert(
      fc.property(encoded, fc.nat(), ({ schema, version, which, value }, cut) => {
        const whole = encode(schema, version, which, value);
        if (whole.length === 0) return;
        const decoded = decode(schema, version, which, whole.subarray(0, cut % whole.length));
        expect(decoded.ok).toBe(false);
      }),
      { numRuns: 800 },
    );
  });

  it("corrupted bytes decode or give an error value, never throw", () => {
    fc.assert(
      fc.property(encoded, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), ({ schema, version, which, value }, flips) => {
        const data = encode(schema, version, which, value);
        if (data.length === 0) return;
        for (const [at, byte] of flips) data[at % data.length] = byte;
        const decoded = decode(schema, version, which, data);
        expect(typeof decoded.ok).toBe("boolean");
      }),
      { numRuns: 800 },
    );
  });

  it("any frame body at all is read or refused as a value", () => {
    const headed = fc.tuple(fc.constantFrom(...layouts), fc.uint8Array({ maxLength: 64 })).map(([{ schema, version }, tail]) => {
      const head = new Uint8Array([schema.apiKey >> 8, schema.apiKey & 0xff, version >> 8, version & 0xff, 0, 0, 0, 1, 0xff, 0xff]);
      return Uint8Array.of(...head, ...tail);
    });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), headed), (frame) => {
        expect(typeof readRequest(frame).ok).toBe("boolean");
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("large byte runs", { timeout: propertyTimeoutMs }, () => {
  it("are written by reference (record batches are not copied) and read back the same", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 4 }), (sizes) => {
        const batches = sizes.map((size, i) => new Uint8Array(size).fill(i + 1));
        const body = {
          responses: [{ topic: "t", partitions: batches.map((records, partitionIndex) => ({ partitionIndex, errorCode: 0, highWatermark: 1n, lastStableOffset: 1n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records })) }],
        };
        const chunks = writeResponse({ apiKey: 1, apiVersion: 12, correlationId: 5 }, body);
        for (const records of batches.filter((records) => records.length >= 4096)) expect(chunks).toContain(records);
        const frame = Buffer.concat(chunks);
        expect(frame.readInt32BE(0)).toBe(frame.length - 4);
        const read = readResponse(new Uint8Array(frame.subarray(4)), 1, 12);
        if (!read.ok) throw new Error(read.error);
        const records = (read.value.body.responses as { partitions: { records: Uint8Array }[] }[])[0]!.partitions.map((p) => p.records);
        expect(records.map((bytes, i) => Buffer.from(bytes).equals(batches[i]!))).toEqual(batches.map(() => true));
      }),
      { numRuns: 30 },
    );
  });
});

describe("frames", () => {
  const frame = (n: number) => writeRequest({ apiKey: 18, apiVersion: 0, correlationId: n, clientId: `client-${n}` }, {});

  it("come out whole and in order however the stream is split", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }), (count, cuts) => {
        const frames = Array.from({ length: count }, (_, i) => frame(i));
        const stream = Uint8Array.from(frames.flatMap((f) => [...f]));
        const reader = new FrameReader(1024);
        const out: Uint8Array[] = [];
        let at = 0;
        for (let i = 0; at < stream.length; i++) {
          const size = cuts[i % cuts.length]!;
          const read = reader.push(stream.subarray(at, at + size));
          if (!read.ok) throw new Error(read.error);
          out.push(...read.frames);
          at += size;
        }
        expect(out.map((f) => [...f])).toEqual(frames.map((f) => [...f.subarray(4)]));
        expect(reader.bufferedBytes).toBe(0);
      }),
    );
  });

  it("a size over the bound, or a negative one, is refused as soon as the size is read", () => {
    const reader = new FrameReader(100);
    expect(reader.push(Uint8Array.of(0, 0, 0, 101))).toEqual({ ok: false, error: "a frame of 101 bytes, over the bound of 100" });
    expect(new FrameReader(100).push(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toMatchObject({ ok: false });
    expect(new FrameReader(100).push(Uint8Array.of(0, 0, 0, 100))).toEqual({ ok: true, frames: [] });
  });

  it("an unknown API or version reads as unsupported, with its header", () => {
    const unknown = writeRequest({ apiKey: 18, apiVersion: 0, correlationId: 9, clientId: null }, {}).subarray(4).slice();
    unknown[3] = 77; // ApiVersions v77
    expect(readRequest(unknown)).toEqual({ ok: true, value: { kind: "unsupported", header: { apiKey: 18, apiVersion: 77, correlationId: 9, clientId: null } } });
  });
});
