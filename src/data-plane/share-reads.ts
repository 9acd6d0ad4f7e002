import { TributaryError } from "../errors.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { readPartition } from "./partition-reads.ts";

/** Reads one acquisition may take from the leader: the offsets are a bounded window (shareInFlightRecordsMax), so a few reads cover them. */
const readsPerAcquisitionMax = 8;

export interface AcquiredReads {
  /** The records of the given offsets the log has, in offset order. */
  records: DecodedRecord[];
  /** Offsets the log no longer has (below its start, or removed by compaction). */
  missing: number[];
  /** Offsets not read (the byte budget or the read bound ran out). */
  unread: number[];
}

/**
 * Reads the records at the given offsets of a partition from its leader (through the
 * router's leader calls, as a fetch does): whole stored batches, from the lowest offset on,
 * keeping only the offsets asked for — so a stored batch may be split between fetches.
 * `maxBytes` bounds each read's bytes, not the answer's. At read_committed (the group's
 * share.isolation.level) an aborted transaction's records are missing, as control records are
 * at either level; offsets past the last stable offset are unread.
 */
export async function readAcquired(
  env: Env,
  topic: TopicMetadata,
  partition: number,
  offsets: readonly number[],
  maxBytes: number,
  isolation: Isolation,
): Promise<AcquiredReads> {
  const wanted = [...offsets].sort((a, b) => a - b);
  const records: DecodedRecord[] = [];
  const missing: number[] = [];
  let next = 0; // index into wanted: every offset before it is found or missing
  for (let read = 0; read < readsPerAcquisitionMax && next < wanted.length; read++) {
    const from = wanted[next]!;
    const last = wanted[wanted.length - 1]!;
    let answer;
    try {
      answer = await readPartition(env, topic, partition, { offset: from, maxRecords: last - from + 1, maxBytes, waitMs: 0, isolation });
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "OFFSET_OUT_OF_RANGE") throw error;
      const { logStartOffset } = error.data as { logStartOffset: number };
      if (from >= logStartOffset) throw error; // past the high watermark: never acquired so
      while (next < wanted.length && wanted[next]! < logStartOffset) missing.push(wanted[next++]!);
      continue;
    }
    const byOffset = new Map(answer.records.map((record) => [record.offset, record]));
    while (next < wanted.length && wanted[next]! < answer.nextOffset) {
      const offset = wanted[next++]!;
      const record = byOffset.get(offset);
      if (record) records.push(record);
      else missing.push(offset);
    }
    if (answer.nextOffset <= from) break; // nothing more to read now
  }
  return { records, missing, unread: wanted.slice(next) };
}
