import type { ArchiveReason, InFlightRecord, RecordState } from "./in-flight-record.ts";

/**
 * A share-partition as one stored row (src/objects/share-partition-state.ts): its window as
 * runs of equal offsets rather than one entry per record, so a request that acquires or
 * acknowledges a thousand records writes one row of a few runs.
 *
 * A run is `[firstOffset, lastOffset, state, deliveryCount, lease, untilMs, reason]`;
 * runs are contiguous from `startOffset` and cover the window exactly. `untilMs` is kept, so a
 * restarted object frees no lock early.
 */
export interface PersistedSharePartition {
  startOffset: number;
  highWatermark: number;
  archivedTotal: number;
  ranges: PersistedRange[];
}

export type PersistedRange = [
  firstOffset: number,
  lastOffset: number,
  state: RecordState,
  deliveryCount: number,
  lease: string | null,
  untilMs: number | null,
  reason: ArchiveReason | null,
];

const same = (a: InFlightRecord, b: InFlightRecord) =>
  a.state === b.state && a.deliveryCount === b.deliveryCount && a.lease === b.lease && a.untilMs === b.untilMs && a.reason === b.reason;

/** The window's runs; offsets are relative to the window's start until `withStart` places them. */
export function toRanges(records: readonly InFlightRecord[], startOffset = 0): PersistedRange[] {
  const ranges: PersistedRange[] = [];
  let runStart = 0;
  for (let index = 1; index <= records.length; index++) {
    if (index < records.length && same(records[index]!, records[runStart]!)) continue;
    const first = records[runStart]!;
    ranges.push([startOffset + runStart, startOffset + index - 1, first.state, first.deliveryCount, first.lease, first.untilMs, first.reason]);
    runStart = index;
  }
  return ranges;
}

/** The window from its runs (relative offsets, as toRanges writes them). */
export function fromRanges(ranges: readonly PersistedRange[]): InFlightRecord[] {
  const records: InFlightRecord[] = [];
  for (const [first, last, state, deliveryCount, lease, untilMs, reason] of ranges) {
    if (first !== records.length || last < first) throw new Error(`share-partition runs are not contiguous at ${first}`);
    for (let offset = first; offset <= last; offset++) records.push({ state, deliveryCount, lease, untilMs, reason });
  }
  return records;
}
