import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchFormatError, encodeRecordBatch, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { recordPayloadBytes, scanRecordBatch, type RecordSummary } from "../../../src/protocol/record-scan.ts";

const bytesOrNull = fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null });
const recordArbitrary: fc.Arbitrary<RecordInput> = fc.record({
  key: bytesOrNull,
  value: bytesOrNull,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 12 }), value: bytesOrNull }), { maxLength: 4 }),
  timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
});

type Scanned = RecordSummary & { key: number[] | null; value: number[] | null };

const slice = (bytes: Uint8Array, start: number, length: number) => (length < 0 ? null : [...bytes.subarray(start, start + length)]);

/** Each record's summary, with the key and value bytes its positions point at. */
function scan(bytes: Uint8Array): Scanned[] {
  const summaries: Scanned[] = [];
  scanRecordBatch(bytes, 0, ({ keyIsNull, payloadBytes, headerCount, timestamp, ...at }) =>
    summaries.push({ keyIsNull, payloadBytes, headerCount, timestamp, key: slice(at.bytes, at.keyStart, at.keyLength), value: slice(at.bytes, at.valueStart, at.valueLength) }),
  );
  return summaries;
}

describe("scanRecordBatch", () => {
  it("summarises every record as decoding it would, with where its key and value are", () => {
    fc.assert(
      fc.property(fc.array(recordArbitrary, { minLength: 1, maxLength: 20 }), fc.boolean(), (records, logAppendTime) => {
        const bytes = encodeRecordBatch(records, { logAppendTime });
        const expected = decodeRecordBatch(bytes).records.map((record) => ({
          keyIsNull: record.key === null,
          payloadBytes: recordPayloadBytes(record),
          headerCount: record.headers.length,
          timestamp: record.timestamp,
          key: record.key && [...record.key],
          value: record.value && [...record.value],
        }));
        expect(scan(bytes)).toEqual(expected);
      }),
    );
  });

  it("refuses whatever decoding refuses: any flipped byte after the CRC field, any truncation", () => {
    fc.assert(
      fc.property(fc.array(recordArbitrary, { minLength: 1, maxLength: 5 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (records, at, flip) => {
        const bytes = encodeRecordBatch(records);
        const corrupted = bytes.slice();
        const position = 21 + (at % (bytes.length - 21));
        corrupted[position] = corrupted[position]! ^ flip;
        expect(() => scan(corrupted)).toThrow(BatchFormatError);
        expect(() => scan(bytes.subarray(0, bytes.length - 1 - (at % 10)))).toThrow(BatchFormatError);
      }),
    );
  });
});
