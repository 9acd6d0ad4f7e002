import { TributaryError } from "../errors.ts";

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
