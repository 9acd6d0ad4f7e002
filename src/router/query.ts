import { TributaryError } from "../errors.ts";
import {
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
} from "../limits.ts";
import type { Acks } from "../protocol/schemas.ts";

const integerPattern = /^-?\d{1,16}$/;

/**
 * An integer query or path parameter within [min, max]; `fallback` when absent. Anything
 * else (not a decimal integer, beyond 2^53, outside the range) is 400 INVALID_REQUEST.
 */
export function integerParam(
  name: string,
  text: string | undefined,
  range: { min: number; max: number; fallback?: number },
): number {
  if (text === undefined || text === "") {
    if (range.fallback !== undefined) return range.fallback;
    throw new TributaryError("INVALID_REQUEST", `${name} is required`);
  }
  const value = integerPattern.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new TributaryError("INVALID_REQUEST", `${name} must be an integer from ${range.min} to ${range.max}`);
  }
  return value;
}

/** A partition number from the path: a non-negative integer (whether the topic has it is checked later). */
export function partitionParam(text: string | undefined): number {
  return integerParam("partition", text, { min: 0, max: Number.MAX_SAFE_INTEGER });
}

/**
 * A fetch's query (API.md, Fetch): `offset` is required (a negative one is left for the
 * partition to answer 416); maxRecords, maxBytes and waitMs default and are bounded.
 */
export function fetchParams(query: Record<string, string | undefined>) {
  return {
    offset: integerParam("offset", query.offset, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    maxRecords: integerParam("maxRecords", query.maxRecords, { min: 1, max: fetchMaxRecordsMax, fallback: fetchMaxRecordsDefault }),
    maxBytes: integerParam("maxBytes", query.maxBytes, { min: 1, max: fetchMaxBytesMax, fallback: fetchMaxBytesDefault }),
    waitMs: integerParam("waitMs", query.waitMs, { min: 0, max: fetchWaitMsMax, fallback: 0 }),
  };
}

/** `acks` as a query parameter (binary produce): 0, 1 or all; default all, as in a JSON body. */
export function acksParam(text: string | undefined): Acks {
  if (text === undefined || text === "all") return "all";
  if (text === "0") return 0;
  if (text === "1") return 1;
  throw new TributaryError("INVALID_REQUEST", "acks must be 0, 1 or all");
}
