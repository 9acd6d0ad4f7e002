import { StreamError } from "./stream-errors.ts";

/**
 * The protocol's offsets (docs/durable-streams.md, "Offsets"): a Tributary offset — the
 * offset of the next record, so a tail offset is the partition's high watermark — as 16
 * decimal digits after a 16-digit zero prefix (`0000000000000000_0000000000000042`, the
 * reference server's shape, which clients and the conformance suite write by hand for the
 * start), so that string order is offset order. `-1` (the start) and `now` (the tail) are
 * the protocol's sentinels; anything else is 400.
 */
const offsetDigits = 16;
const offsetPrefix = `${"0".repeat(offsetDigits)}_`;
const offsetPattern = /^(\d{16})_(\d{16})$/;

export type StreamOffset = { kind: "start" } | { kind: "now" } | { kind: "at"; offset: number };

export function formatStreamOffset(offset: number): string {
  return offsetPrefix + String(offset).padStart(offsetDigits, "0");
}

/** The `offset` query parameter: given at most once, and not empty when given. */
export function parseStreamOffset(values: readonly string[]): StreamOffset {
  if (values.length > 1) throw new StreamError(400, "offset is given more than once");
  const text = values[0];
  if (text === undefined || text === "-1") return { kind: "start" };
  if (text === "now") return { kind: "now" };
  return { kind: "at", offset: offsetOf(text, "offset") };
}

/** An offset this server answered (`Stream-Next-Offset`), as a Tributary offset; 400 otherwise. */
export function offsetOf(text: string, what: string): number {
  const match = offsetPattern.exec(text);
  if (!match) throw new StreamError(400, `${what} ${JSON.stringify(text)} is not an offset of this server: -1, now, or a Stream-Next-Offset it answered`);
  const offset = Number(match[2]);
  if (Number(match[1]) !== 0 || !Number.isSafeInteger(offset)) throw new StreamError(400, `${what} ${text} is past any stream's tail`);
  return offset;
}
