/**
 * Flow control and fan-out for a partition's WebSocket subscribers (docs/api.md, "WebSocket
 * on a partition"), pure: the leader object (src/objects/partition-subscribers.ts) keeps one
 * `SubscriberPosition` per socket (in the socket's attachment, so it survives hibernation)
 * and asks this module who gets what.
 *
 * - Credit (HTTP/2 WINDOW_UPDATE-style): a socket's room starts at the starting window, each
 *   frame sent takes its bytes, each `{"credit": n}` adds n, clamped at the largest window
 *   (credit may run ahead of consumption: a client grants up to the largest window at once).
 *   A frame larger than the room goes alone when the room is at least the starting window
 *   (a client that returns credit per frame is then caught up; one following
 *   `src/protocol/stream-credit.ts` always gets back there), so no frame size stalls a socket.
 * - Fan-out: subscribers at the same next offset share one read (`positionGroups`).
 * - Stalls: a socket left behind by a push (no room for the next batch) is stalled from the
 *   first time that is seen; `stallDeadline` says when it must be closed.
 */

import type { CreditWindow } from "../protocol/stream-credit.ts";

/** Every subscriber's mode: JSON text frames with keys and values in UTF-8 or base64, or binary record batches. */
export type SubscriberMode = "utf8" | "base64" | "binary";

export interface SubscriberPosition {
  /** The next offset this subscriber needs. */
  next: number;
  mode: SubscriberMode;
  /** Frame bytes the leader may still send before more credit comes (below zero after a frame larger than the room). */
  room: number;
  /** When the subscriber was first seen without room while records waited; null when it has room or nothing waits. */
  stalledSinceMs: number | null;
  /** read_uncommitted: served up to the high watermark; absent (read_committed, the default): up to the last stable offset. */
  uncommitted?: true;
}

/** A new subscriber's position: the starting window's room, not stalled. */
export function openedAt(next: number, mode: SubscriberMode, bounds: CreditWindow): SubscriberPosition {
  return { next, mode, room: bounds.startBytes, stalledSinceMs: null };
}

/** The frame bytes the subscriber may still receive before credit comes (0: no room). */
export function frameBudget(position: SubscriberPosition): number {
  return Math.max(0, position.room);
}

export function hasRoom(position: SubscriberPosition): boolean {
  return position.room > 0;
}

/**
 * How many bytes one read for these subscribers needs: the largest budget, at most the
 * starting window (a frame's bound, below), at least one byte (a read returns at least one
 * batch whatever its size).
 */
export function readBytesFor(positions: readonly SubscriberPosition[], bounds: CreditWindow): number {
  let bytes = 1;
  for (const position of positions) bytes = Math.max(bytes, frameBudget(position));
  return Math.min(bytes, bounds.startBytes);
}

/**
 * How many of the leading parts (batches) of the next frame go to this subscriber: the most
 * whose frame bytes (`frameBytes(k)`, growing with k) fit its room and the starting window
 * (a frame stays within one fetch answer's 1 MiB however far credit grew the room: a larger
 * room is filled by several frames); when not even one fits, the first alone if the room is
 * at least the starting window (a frame larger than that — a batch's JSON may be several
 * times its stored bytes — still goes), else none.
 */
export function partsThatFit(partCount: number, position: SubscriberPosition, bounds: CreditWindow, frameBytes: (parts: number) => number): number {
  const budget = Math.min(frameBudget(position), bounds.startBytes);
  if (partCount === 0 || budget <= 0) return 0;
  let fit = 0;
  while (fit < partCount && frameBytes(fit + 1) <= budget) fit++;
  if (fit === 0 && position.room >= bounds.startBytes) return 1;
  return fit;
}

/** After sending a frame of `bytes` that ends before `next`. */
export function afterFrame(position: SubscriberPosition, bytes: number, next: number): SubscriberPosition {
  return { ...position, next, room: position.room - bytes, stalledSinceMs: null };
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

/** A `{"credit": n}` message: `n` bytes more room, clamped at the largest window (docs/api.md: not an error). */
export function afterCredit(position: SubscriberPosition, credit: number, bounds: CreditWindow): SubscriberPosition {
  return { ...position, room: Math.min(bounds.maxBytes, position.room + credit) };
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
): Map<number, Id[]> {
  const groups = new Map<number, Id[]>();
  for (const { id, position } of subscribers) {
    if (position.next >= highWatermark || !hasRoom(position)) continue;
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
