import { streamCursorIntervalMs } from "../limits.ts";

/**
 * The protocol's cursor for CDN collapsing (its section 8.1): the number of cursor intervals
 * since 2024-10-09T00:00:00Z. When the client's cursor is not behind the current interval,
 * the answer moves past it by a random 1–3,600 s (in whole intervals), so cursors never go
 * back and a cached empty answer cannot loop.
 */
const cursorEpochMs = Date.UTC(2024, 9, 9);
const jitterSecondsMax = 3600;

export function streamCursor(nowMs: number, clientCursor: string | undefined, random: () => number = Math.random): string {
  const current = Math.floor((nowMs - cursorEpochMs) / streamCursorIntervalMs);
  const given = clientCursor !== undefined && /^\d{1,15}$/.test(clientCursor) ? Number(clientCursor) : undefined;
  if (given === undefined || given < current) return String(current);
  const jitterSeconds = 1 + Math.floor(random() * jitterSecondsMax);
  return String(given + Math.max(1, Math.ceil((jitterSeconds * 1000) / streamCursorIntervalMs)));
}
