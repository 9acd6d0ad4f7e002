import { retryDelayMs } from "./retry-backoff.ts";
import { recordKey, type AckType } from "./delivery-answer.ts";

/**
 * Ordered delivery of one partition (docs/api.md, Subscriptions), pure: one batch in flight
 * at a time, in offset order. A batch is the offsets read at `position`; it stays in flight —
 * redelivered with the same offsets, so a target can deduplicate — until each of its records
 * is accepted, rejected, or has been delivered `deliveryLimit` times; then `position` moves
 * past it. The Subscription object persists the cursor before each delivery and after each
 * settlement, and writes dead letters before it persists a settlement that drops them.
 */
export interface InFlightBatch {
  /** The offsets not yet settled, ascending; the first delivery carries every record read. */
  offsets: number[];
  /** The offset after the batch's last record: the next position once it is settled. */
  endOffset: number;
  /** Deliveries made of these records. */
  deliveries: number;
  /** When the next delivery may start; null: now. */
  retryAtMs: number | null;
}

export interface PartitionCursor {
  partition: number;
  /** Every record below it is settled. */
  position: number;
  inFlight: InFlightBatch | null;
}

/** A delivery's outcome: the target failed (any error, non-2xx, timeout) or answered with per-record acknowledgements (empty: all accepted). */
export type DeliveryOutcome = { kind: "failed"; error: string } | { kind: "answered"; acks: ReadonlyMap<string, AckType> };

export type DeadLetterReason = "rejected" | "delivery-limit";

export interface DeadLetters {
  offsets: number[];
  reason: DeadLetterReason;
}

export interface Settlement {
  cursor: PartitionCursor;
  accepted: number;
  /** Records that will be delivered again. */
  retried: number;
  /** Records given up on, by reason, with the delivery count they reached. */
  deadLetters: DeadLetters[];
  deliveryCount: number;
}

export interface DeliverySettings {
  deliveryLimit: number;
  retryDelayMs: number;
}

/** A new batch from the offsets read at the cursor's position (`endOffset`: the read's next offset). */
export function startBatch(cursor: PartitionCursor, offsets: number[], endOffset: number): PartitionCursor {
  if (cursor.inFlight) throw new Error(`partition ${cursor.partition} has a batch in flight`);
  if (offsets.length === 0) return { ...cursor, position: Math.max(cursor.position, endOffset) };
  return { ...cursor, inFlight: { offsets, endOffset, deliveries: 0, retryAtMs: null } };
}

/** Whether the cursor's batch may be delivered at `nowMs` (a fresh batch, or its retry delay passed). */
export function isDue(cursor: PartitionCursor, nowMs: number): boolean {
  return cursor.inFlight !== null && (cursor.inFlight.retryAtMs === null || cursor.inFlight.retryAtMs <= nowMs);
}

/** Settles one delivery of the cursor's batch with the target's outcome. */
export function settle(cursor: PartitionCursor, outcome: DeliveryOutcome, settings: DeliverySettings, nowMs: number): Settlement {
  const batch = cursor.inFlight;
  if (!batch) throw new Error(`partition ${cursor.partition} has no batch in flight`);
  const deliveryCount = batch.deliveries + 1;
  const released: number[] = [];
  const rejected: number[] = [];
  let accepted = 0;
  for (const offset of batch.offsets) {
    const type = outcome.kind === "failed" ? "release" : (outcome.acks.get(recordKey(cursor.partition, offset)) ?? "accept");
    if (type === "accept") accepted++;
    else if (type === "reject") rejected.push(offset);
    else released.push(offset);
  }
  const deadLetters: DeadLetters[] = [];
  if (rejected.length > 0) deadLetters.push({ offsets: rejected, reason: "rejected" });
  const exhausted = deliveryCount >= settings.deliveryLimit;
  if (released.length > 0 && exhausted) deadLetters.push({ offsets: released, reason: "delivery-limit" });
  if (released.length === 0 || exhausted) {
    return { cursor: { partition: cursor.partition, position: batch.endOffset, inFlight: null }, accepted, retried: 0, deadLetters, deliveryCount };
  }
  const retryAtMs = nowMs + retryDelayMs(settings.retryDelayMs, deliveryCount);
  const inFlight = { offsets: released, endOffset: batch.endOffset, deliveries: deliveryCount, retryAtMs };
  return { cursor: { ...cursor, inFlight }, accepted, retried: released.length, deadLetters, deliveryCount };
}
