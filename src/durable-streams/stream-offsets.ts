import { StreamError } from "./stream-errors.ts";

/**
 * The protocol's offsets (docs/durable-streams.md, "Offsets"): a Tributary offset — the
 * offset of the next record, so a tail offset is the partition's high watermark — as 16
 * decimal digits, so that string order is offset order. `-1` (the start) and `now` (the
 * tail) are the protocol's sentinels; anything else is 400.
 */
const offsetDigits = 16;
const offsetPattern = /^\d{16}$/;

export type StreamOffset = { kind: "start" } | { kind: "now" } | { kind: "at"; offset: number };

export function formatStreamOffset(offset: number): string {
  return String(offset).padStart(offsetDigits, "0");
}

/** The `offset` query parameter: given at most once, and not empty when given. */
export function parseStreamOffset(values: readonly string[]): StreamOffset {
  if (values.length > 1) throw new StreamError(400, "offset is given more than once");
  const text = values[0];
  if (text === undefined || text === "-1") return { kind: "start" };
  if (text === "now") return { kind: "now" };
  if (!offsetPattern.test(text)) throw new StreamError(400, `offset ${JSON.stringify(text)} is not an offset of this server: -1, now, or a Stream-Next-Offset it answered`);
  const offset = Number(text);
  if (!Number.isSafeInteger(offset)) throw new StreamError(400, `offset ${text} is out of range`);
  return { kind: "at", offset };
}
