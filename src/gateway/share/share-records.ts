/**
 * A share fetch's records (JSON from `POST /v1/share-groups/{g}/fetch`, keys and values in
 * base64) as a ShareFetch partition answers them: record batches (one per run of consecutive
 * offsets, since a batch's offsets are its base plus each record's index) and KIP-932's
 * acquired-records ranges (consecutive offsets with one delivery count each).
 */
import { encodeRecordBatch, type RecordInput } from "../../protocol/record-batch.ts";

/** One record of a share fetch's answer, as the route answers it with `"encoding": "base64"`. */
export interface SharedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
  deliveryCount: number;
}

const utf8 = new TextEncoder();

function recordInput(record: SharedRecord): RecordInput {
  const bytes = (text: string | null) => (text === null ? null : new Uint8Array(Buffer.from(text, "base64")));
  return {
    key: bytes(record.key),
    value: bytes(record.value),
    headers: Object.entries(record.headers).map(([key, value]) => ({ key, value: value === null ? null : utf8.encode(value) })),
    timestamp: record.timestamp,
  };
}

/** A partition's records (any order) as record batches and acquired ranges, by offset. */
export function sharedPartition(records: readonly SharedRecord[]): { batches: Uint8Array[]; acquiredRecords: { firstOffset: bigint; lastOffset: bigint; deliveryCount: number }[] } {
  const sorted = [...records].sort((a, b) => a.offset - b.offset);
  const batches: Uint8Array[] = [];
  const acquiredRecords: { firstOffset: bigint; lastOffset: bigint; deliveryCount: number }[] = [];
  let run: SharedRecord[] = [];
  const flush = () => {
    if (run.length > 0) batches.push(encodeRecordBatch(run.map(recordInput), { baseOffset: run[0]!.offset }));
    run = [];
  };
  for (const record of sorted) {
    if (run.length > 0 && record.offset !== run[run.length - 1]!.offset + 1) flush();
    run.push(record);
    const range = acquiredRecords[acquiredRecords.length - 1];
    if (range !== undefined && Number(range.lastOffset) === record.offset - 1 && range.deliveryCount === record.deliveryCount) range.lastOffset = BigInt(record.offset);
    else acquiredRecords.push({ firstOffset: BigInt(record.offset), lastOffset: BigInt(record.offset), deliveryCount: record.deliveryCount });
  }
  flush();
  return { batches, acquiredRecords };
}
