import { describe, expect, it } from "vitest";
import { decodeControlBatch, encodeControlBatch, isControlBatch, isTransactionalBatch } from "../../../src/protocol/control-batch.ts";
import { crc32c } from "../../../src/protocol/crc32c.ts";
import { BatchFormatError, encodeRecordBatch, readBatchHeader, verifyBatchCrc } from "../../../src/protocol/record-batch.ts";

/**
 * The marker batch laid out field by field from Kafka's format (DefaultRecordBatch,
 * ControlRecordType, EndTransactionMarker), not through the encoder under test.
 */
function expectedMarkerBytes(producerId: bigint, producerEpoch: number, type: number, coordinatorEpoch: number, timestampMs: bigint): Uint8Array {
  const bytes = new Uint8Array(78);
  const view = new DataView(bytes.buffer);
  view.setBigInt64(0, 0n); // baseOffset: the leader's
  view.setInt32(8, 78 - 12); // batchLength
  view.setInt32(12, -1); // partitionLeaderEpoch: the leader's
  bytes[16] = 2; // magic
  view.setInt16(21, 0x30); // attributes: transactional | control
  view.setInt32(23, 0); // lastOffsetDelta
  view.setBigInt64(27, timestampMs); // baseTimestamp
  view.setBigInt64(35, timestampMs); // maxTimestamp
  view.setBigInt64(43, producerId);
  view.setInt16(51, producerEpoch);
  view.setInt32(53, -1); // baseSequence
  view.setInt32(57, 1); // recordCount
  // The record: length 16 (zigzag 32), attributes, timestampDelta 0, offsetDelta 0, key of 4 (zigzag 8), value of 6 (zigzag 12), no headers.
  bytes.set([32, 0, 0, 0, 8], 61);
  view.setInt16(66, 0); // key: version
  view.setInt16(68, type); // key: type
  bytes[70] = 12;
  view.setInt16(71, 0); // value: version
  view.setInt32(73, coordinatorEpoch);
  bytes[77] = 0; // header count
  view.setUint32(17, crc32c(bytes, 21, 78));
  return bytes;
}

describe("control batches (transaction markers)", () => {
  it("encodes a COMMIT marker byte for byte as Kafka writes it", () => {
    const bytes = encodeControlBatch({ producerId: 4242, producerEpoch: 7, result: "commit", coordinatorEpoch: 3 }, 1_700_000_000_123);
    expect([...bytes]).toEqual([...expectedMarkerBytes(4242n, 7, 1, 3, 1_700_000_000_123n)]);
    expect(verifyBatchCrc(bytes)).toBe(true);
  });

  it("encodes an ABORT marker with type 0", () => {
    const bytes = encodeControlBatch({ producerId: 1, producerEpoch: 32767, result: "abort", coordinatorEpoch: -1 }, 5);
    expect([...bytes]).toEqual([...expectedMarkerBytes(1n, 32767, 0, -1, 5n)]);
  });

  it("decodes what it encodes, and Kafka's layout", () => {
    for (const marker of [
      { producerId: 9, producerEpoch: 0, result: "abort" as const, coordinatorEpoch: 0 },
      { producerId: 2 ** 40, producerEpoch: 12, result: "commit" as const, coordinatorEpoch: 2 ** 31 - 1 },
    ]) {
      expect(decodeControlBatch(encodeControlBatch(marker, 77))).toEqual(marker);
    }
    expect(decodeControlBatch(expectedMarkerBytes(4242n, 7, 0, 3, 1n))).toEqual({ producerId: 4242, producerEpoch: 7, result: "abort", coordinatorEpoch: 3 });
  });

  it("answers undefined for a data batch and for another control type", () => {
    const data = encodeRecordBatch([{ key: null, value: new Uint8Array([1]), headers: [], timestamp: 1 }], { transactional: true, producerId: 1, producerEpoch: 0, baseSequence: 0 });
    expect(decodeControlBatch(data)).toBeUndefined();
    expect(isTransactionalBatch(readBatchHeader(data).attributes)).toBe(true);
    expect(isControlBatch(readBatchHeader(data).attributes)).toBe(false);
    expect(decodeControlBatch(expectedMarkerBytes(1n, 0, 2, 0, 1n))).toBeUndefined(); // LEADER_CHANGE
  });

  it("refuses a control batch without a control key", () => {
    const odd = encodeRecordBatch([{ key: null, value: null, headers: [], timestamp: 1 }], { control: true, transactional: true });
    expect(() => decodeControlBatch(odd)).toThrow(BatchFormatError);
  });
});
