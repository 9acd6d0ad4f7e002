/**
 * Kafka's control batches: the COMMIT and ABORT markers a transaction coordinator writes into
 * every partition of a transaction (KIP-98; docs/transactions.md). Byte for byte as Kafka's
 * broker writes them, so the gateway hands them to Kafka clients as stored:
 *
 *   the batch    a RecordBatch v2 (record-batch.ts) with attributes isTransactional (0x10) |
 *                isControl (0x20), no compression, CreateTime; the producer's id and epoch,
 *                baseSequence −1; one record at offset delta 0, timestamp delta 0, no headers
 *   its key      int16 version 0, int16 type (0 ABORT, 1 COMMIT)              4 bytes
 *   its value    int16 version 0, int32 coordinatorEpoch                       6 bytes
 *
 * Kafka has other control types (2 LEADER_CHANGE and KRaft's snapshot records) that never
 * reach a data partition's fetch; decoding one here answers undefined, not a marker.
 */
import { controlFlag, encodeRecordBatch, fail, readBatchHeader, transactionalFlag } from "./record-batch.ts";
import { decodeRecordBatch } from "./record-batch-decode.ts";

export type MarkerResult = "commit" | "abort";

export interface TransactionMarker {
  producerId: number;
  producerEpoch: number;
  result: MarkerResult;
  coordinatorEpoch: number;
}

/** Kafka's ControlRecordType ids of the two transaction markers. */
const controlTypeAbort = 0;
const controlTypeCommit = 1;
/** The version both the key (ControlRecordType) and the value (EndTransactionMarker) carry. */
const markerVersion = 0;

/** Whether a batch's attributes mark it as a control batch (a marker): never shown as records. */
export function isControlBatch(attributes: number): boolean {
  return (attributes & controlFlag) !== 0;
}

/** Whether a batch's attributes mark it as part of a transaction (data or marker). */
export function isTransactionalBatch(attributes: number): boolean {
  return (attributes & transactionalFlag) !== 0;
}

/** The control record's key: version and type. */
export function markerKey(result: MarkerResult): Uint8Array {
  const key = new Uint8Array(4);
  const view = new DataView(key.buffer);
  view.setInt16(0, markerVersion);
  view.setInt16(2, result === "commit" ? controlTypeCommit : controlTypeAbort);
  return key;
}

/** The control record's value: version and the coordinator's epoch. */
export function markerValue(coordinatorEpoch: number): Uint8Array {
  const value = new Uint8Array(6);
  const view = new DataView(value.buffer);
  view.setInt16(0, markerVersion);
  view.setInt32(2, coordinatorEpoch);
  return value;
}

/**
 * The marker as a control batch at offset 0 with epoch −1 (the leader sets both on append,
 * outside the CRC), stamped with `timestampMs` as Kafka stamps it with the broker's clock.
 */
export function encodeControlBatch(marker: TransactionMarker, timestampMs: number): Uint8Array {
  if (!Number.isInteger(marker.coordinatorEpoch) || marker.coordinatorEpoch < -0x80000000 || marker.coordinatorEpoch > 0x7fffffff) {
    throw new RangeError(`coordinatorEpoch ${marker.coordinatorEpoch} is not an int32`);
  }
  const record = { key: markerKey(marker.result), value: markerValue(marker.coordinatorEpoch), headers: [], timestamp: timestampMs };
  return encodeRecordBatch([record], {
    producerId: marker.producerId,
    producerEpoch: marker.producerEpoch,
    baseSequence: -1,
    transactional: true,
    control: true,
  });
}

/**
 * The transaction marker a control batch holds; undefined for a batch that is not a control
 * batch or holds another control type. A control batch that is not one record with a 4-byte
 * key of version 0 throws BatchFormatError.
 */
export function decodeControlBatch(bytes: Uint8Array, at = 0): TransactionMarker | undefined {
  const header = readBatchHeader(bytes, at);
  if (!isControlBatch(header.attributes)) return undefined;
  const { records } = decodeRecordBatch(bytes, at, { checkCrc: false });
  const key = records[0]?.key;
  if (records.length !== 1 || !key || key.length < 4) fail(`control batch at ${header.baseOffset}: not one control record with a key`);
  const keyView = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const type = keyView.getInt16(2);
  if (keyView.getInt16(0) !== markerVersion) fail(`control record version ${keyView.getInt16(0)}`);
  if (type !== controlTypeAbort && type !== controlTypeCommit) return undefined;
  const value = records[0]!.value;
  if (!value || value.length < 6) fail(`transaction marker at ${header.baseOffset}: value of ${value?.length ?? "null"} bytes`);
  const coordinatorEpoch = new DataView(value.buffer, value.byteOffset, value.byteLength).getInt32(2);
  return { producerId: header.producerId, producerEpoch: header.producerEpoch, result: type === controlTypeCommit ? "commit" : "abort", coordinatorEpoch };
}
