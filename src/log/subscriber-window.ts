/**
 * Flow control and fan-out for a partition's WebSocket subscribers (docs/api.md, "WebSocket
 * on a partition"), pure: the leader object (src/objects/partition-subscribers.ts) keeps one
 * `SubscriberPosition` per socket (in the socket's attachment, so it survives hibernation)
 * and asks this module who gets what.
 *
 * - Credit: a socket may have at most `windowBytes` of frame bytes unreturned; a frame larger
 *   than the window goes only when nothing is unreturned.
 * - Fan-out: subscribers at the same next offset share one read (`positionGroups`).
 * - Stalls: a socket left behind by a push (no room for the next batch) is stalled from the
 *   first time that is seen; `stallDeadline` says when it must be closed.
 */

/** Every subscriber's mode: JSON text frames with keys and values in UTF-8 or base64, or binary record batches. */
export type SubscriberMode = "utf8" | "base64" | "binary";

export interface SubscriberPosition {
  /** The next offset this subscriber needs. */
  next: number;
  mode: SubscriberMode;
  /** Frame bytes sent and not yet returned as credit. */
  unreturned: number;
  /** When the subscriber was first seen without room while records waited; null when it has room or nothing waits. */
  stalledSinceMs: number | null;
}

/** The frame bytes the subscriber may still receive before credit returns (0: no room). */
export function frameBudget(position: SubscriberPosition, windowBytes: number): number {
  return Math.max(0, windowBytes - position.unreturned);
}

export function hasRoom(position: SubscriberPosition, windowBytes: number): boolean {
  return frameBudget(position, windowBytes) > 0;
}

/** How many bytes one read for these subscribers needs: the largest budget (a read returns at least one batch whatever its size). */
export function readBytesFor(positions: readonly SubscriberPosition[], windowBytes: number): number {
  let bytes = 1;
  for (const position of positions) bytes = Math.max(bytes, frameBudget(position, windowBytes));
  return bytes;
}

/**
 * How many of the leading parts (batches) of the next frame go to this subscriber: the most
 * whose frame bytes (`frameBytes(k)`, growing with k) fit its budget; when not even one fits,
 * the first alone if nothing is unreturned (a frame larger than the window), else none.
 */
export function partsThatFit(partCount: number, position: SubscriberPosition, windowBytes: number, frameBytes: (parts: number) => number): number {
  const budget = frameBudget(position, windowBytes);
  if (partCount === 0 || budget <= 0) return 0;
  let fit = 0;
  while (fit < partCount && frameBytes(fit + 1) <= budget) fit++;
  if (fit === 0 && position.unreturned === 0) return 1;
  return fit;
}

/** After sending a frame of `bytes` that ends before `next`. */
export function afterFrame(position: SubscriberPosition, bytes: number, next: number): SubscriberPosition {
  return { ...position, next, unreturned: position.unreturned + bytes, stalledSinceMs: null };
}

/**
 * Whether credit returned by this subscriber can let anything be sent now: only when records
 * wait for it (it is behind the high watermark). One caught up gets its next frame from the
 * push of the next commit, so its credit needs no push of its own (with many fast
 * subscribers, one push per credit would go over every socket once per frame per socket).
 */
export function creditMayUnblock(position: SubscriberPosition, highWatermark: number): boolean {
  return position.next < highWatermark;
}

/** A `{"credit": n}` message: `n` bytes are returned (never below zero unreturned). */
export function afterCredit(position: SubscriberPosition, credit: number): SubscriberPosition {
  return { ...position, unreturned: Math.max(0, position.unreturned - credit) };
}

/**
 * A client message as docs/api.md allows it: `{"credit": n}` with n a non-negative safe
 * integer and nothing else. Anything else is undefined (the socket is closed with 4400).
 */
export function parseCredit(message: string | ArrayBuffer): number | undefined {
  if (typeof message !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const keys = Object.keys(parsed);
  const credit = (parsed as { credit?: unknown }).credit;
  if (keys.length !== 1 || keys[0] !== "credit" || !Number.isSafeInteger(credit) || (credit as number) < 0) return undefined;
  return credit as number;
}

/**
 * Subscribers that can take records now, grouped by next offset (and kept in the given
 * order): each group is served by one read. Subscribers caught up (next ≥ the high
 * watermark) or without room are left out.
 */
export function positionGroups<Id>(
  subscribers: ReadonlyArray<{ id: Id; position: SubscriberPosition }>,
  highWatermark: number,
  windowBytes: number,
): Map<number, Id[]> {
  const groups = new Map<number, Id[]>();
  for (const { id, position } of subscribers) {
    if (position.next >= highWatermark || !hasRoom(position, windowBytes)) continue;
    const group = groups.get(position.next);
    if (group) group.push(id);
    else groups.set(position.next, [id]);
  }
  return groups;
}

/**
 * The stall clock after a push (which sent every subscriber all its credit allowed): one
 * still behind the high watermark is waiting for credit, stalled since the first time seen
 * (kept); one caught up is not stalled.
 */
export function withStall(position: SubscriberPosition, highWatermark: number, nowMs: number): SubscriberPosition {
  const stalledSinceMs = position.next < highWatermark ? (position.stalledSinceMs ?? nowMs) : null;
  return stalledSinceMs === position.stalledSinceMs ? position : { ...position, stalledSinceMs };
}

/** When a stalled subscriber must be closed (4429); undefined when it is not stalled. */
export function stallDeadline(position: SubscriberPosition, stalledMsMax: number): number | undefined {
  return position.stalledSinceMs === null ? undefined : position.stalledSinceMs + stalledMsMax;
}
