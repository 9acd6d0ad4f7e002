import type { RecordHeader } from "./record-batch.ts";

/**
 * How a Durable Streams stream lives in its topic (docs/durable-streams.md): one record per
 * append, its value the appended bytes (in JSON mode the append's messages as one JSON array).
 * The append that closes a stream carries the header below — with the final data, or with no
 * value when the close appends nothing — so every reader of the topic (the protocol's routes,
 * the JSON API, the CLI) sees where the stream ended.
 */
export const streamClosedHeader = "ds-closed";

/** Whether a record (its headers) is the one that closed its stream. */
export function closesStream(headers: readonly RecordHeader[]): boolean {
  for (const header of headers) if (header.key === streamClosedHeader) return true;
  return false;
}

/**
 * What the partition leader checks for a protocol append in the append's own turn, so two
 * writers never both pass a check before either writes: the stream is still open, and the
 * writer's `Stream-Seq` (compared byte-wise) is above the last one taken.
 */
export interface StreamAppendCondition {
  /** The request's `Stream-Seq` header, when it has one. */
  seq?: string;
  /** The record closes the stream (`Stream-Closed: true`). */
  closes: boolean;
  /** A close that appends no data: closing an already closed stream again is a success. */
  closeOnly: boolean;
}
