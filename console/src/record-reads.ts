/**
 * What the message browser reads: where each partition starts (earliest, latest − N, an
 * offset, a timestamp), one fetch per partition, and merging what arrives (by partition and
 * offset, so a record read twice — a fetch and a stream overlapping — shows once).
 */
import { api, path } from "./api.ts";
import type { FetchAnswer, FetchedRecord, PartitionInfo } from "./types.ts";

export type StartFrom = { kind: "earliest" } | { kind: "latest" } | { kind: "offset"; offset: number } | { kind: "timestamp"; timestamp: number };

/** Records kept on the page; the oldest go first past it (a live tail stays bounded). */
export const shownRecordsMax = 1_000;

export interface ShownRecord extends FetchedRecord {
  partition: number;
}

/** Where a partition's reading starts; `latest` shows the last `count` records before the high watermark. */
export async function startOffset(topic: string, partition: PartitionInfo, from: StartFrom, count: number): Promise<number> {
  switch (from.kind) {
    case "earliest":
      return partition.logStartOffset;
    case "latest":
      return Math.max(partition.logStartOffset, partition.highWatermark - count);
    case "offset":
      return Math.min(Math.max(from.offset, partition.logStartOffset), partition.highWatermark);
    case "timestamp": {
      const answer = await api<{ offset: number }>("GET", `${path`/v1/topics/${topic}/partitions/${partition.partition}/offsets`}?at=${from.timestamp}`);
      return answer.offset;
    }
  }
}

/**
 * One read of a partition, from its leader: `Tributary-Region` names the leader's region, so no
 * follower (which learns the high watermark about a second later) serves it, and a record just
 * produced from the form is there to show.
 */
export async function fetchPartition(topic: string, partition: number, offset: number, maxRecords: number, leaderRegion: string | undefined, decode = false): Promise<{ records: ShownRecord[]; nextOffset: number }> {
  const url = `${path`/v1/topics/${topic}/partitions/${partition}/records`}?offset=${offset}&maxRecords=${maxRecords}&encoding=base64${decode ? "&decode=schema" : ""}`;
  const answer = await api<FetchAnswer>("GET", url, undefined, leaderRegion === undefined ? {} : { "tributary-region": leaderRegion });
  return { records: answer.records.map((record) => ({ ...record, partition })), nextOffset: answer.nextOffset };
}

/**
 * How the table lists records: the newest first (reading the latest: what just happened is on
 * top, across partitions by timestamp), or the oldest first (reading forward from an offset,
 * a time or the start).
 */
export type RecordOrder = "newest-first" | "oldest-first";

export function orderFor(from: StartFrom): RecordOrder {
  return from.kind === "latest" ? "newest-first" : "oldest-first";
}

/**
 * The shown records with `more` merged in: one per (partition, offset), by timestamp (then
 * partition and offset) in `order`, at most `max` — the newest kept.
 */
export function mergeRecords(shown: readonly ShownRecord[], more: readonly ShownRecord[], order: RecordOrder = "oldest-first", max = shownRecordsMax): ShownRecord[] {
  const byPosition = new Map<string, ShownRecord>();
  for (const record of [...shown, ...more]) byPosition.set(`${record.partition}:${record.offset}`, record);
  const newestFirst = [...byPosition.values()].sort((a, b) => b.timestamp - a.timestamp || b.partition - a.partition || b.offset - a.offset);
  const kept = newestFirst.slice(0, max);
  return order === "newest-first" ? kept : kept.reverse();
}

/** A record's key as text for the key filter (base64 from the API; null keys never match a filter). */
export function keyMatches(record: FetchedRecord, filter: string, decode: (base64: string) => string | null): boolean {
  if (filter === "") return true;
  if (record.key === null) return false;
  // A key decoded by its schema (decode=schema) is JSON: matched as its JSON text.
  if (record.keySchemaId !== undefined) return JSON.stringify(record.key).includes(filter);
  return (decode(record.key) ?? "").includes(filter);
}
