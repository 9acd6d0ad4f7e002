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

function scan(bytes: Uint8Array): RecordSummary[] {
  const summaries: RecordSummary[] = [];
  scanRecordBatch(bytes, 0, (summary) => summaries.push({ ...summary }));
  return summaries;
}

describe("scanRecordBatch", () => {
  it("summarises every record as decoding it would", () => {
    fc.assert(
      fc.property(fc.array(recordArbitrary, { minLength: 1, maxLength: 20 }), fc.boolean(), (records, logAppendTime) => {
        const bytes = encodeRecordBatch(records, { logAppendTime });
        const expected = decodeRecordBatch(bytes).records.map((record) => ({
          keyIsNull: record.key === null,
          payloadBytes: recordPayloadBytes(record),
          headerCount: record.headers.length,
          timestamp: record.timestamp,
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
