import { TributaryError } from "../errors.ts";
import {
  fetchMaxBytesDefault,
  fetchMaxBytesMax,
  fetchMaxRecordsDefault,
  fetchMaxRecordsMax,
  fetchWaitMsMax,
  transactionalIdLengthMax,
  transactionPartitionsMax,
} from "../limits.ts";
import type { OffsetQuery } from "../contracts/replica-api.ts";
import { encodingSchema, type Acks, type Encoding, type Isolation } from "../protocol/schemas.ts";
import { accessTokenParam } from "./streams/streaming-read.ts";

const integerPattern = /^-?\d{1,16}$/;

/**
 * The query parameters of the routes that take any (docs/api.md, Conventions; every other
 * route takes none): what each passes to `routeQuery`, and what GET /v1/openapi.json lists
 * for it (src/router/openapi/), from this one place.
 */
export const routeQueries = {
  jsonFetch: ["offset", "maxRecords", "maxBytes", "waitMs", "encoding", "isolation", "decode"],
  binaryFetch: ["offset", "maxRecords", "maxBytes", "waitMs", "isolation"],
  binaryProduce: ["acks", "transactionalId", "transactionPartitions", "commitAfterWrites"],
  listOffsets: ["at", "isolation", "leaderEpoch"],
  listGroups: ["states", "types"],
  /** SSE and WebSocket, on a partition or a whole topic. */
  streamingRead: ["offset", "encoding", "isolation", accessTokenParam],
  /** SSE, on a partition or a whole topic: a streaming read that can also decode by schema. */
  sseRead: ["offset", "encoding", "isolation", accessTokenParam, "decode"],
} as const;

/** How much of an unknown parameter's name an error message repeats. */
const parameterNameCharsShown = 64;

/**
 * The query parameters a route takes, each given at most once. Any other parameter is
 * 400 INVALID_REQUEST naming it, before any work (docs/api.md lists each route's): a
 * misspelt or misplaced option — `?acks=1` on a JSON produce, whose `acks` is in the body —
 * would otherwise be ignored silently. `hint` ends the message (where the option goes).
 */
export function routeQuery<const Name extends string>(url: string, accepted: readonly Name[], hint = ""): Partial<Record<Name, string>> {
  const query: Partial<Record<Name, string>> = {};
  const start = url.indexOf("?");
  if (start < 0) return query;
  for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
    if (!(accepted as readonly string[]).includes(name)) {
      const takes = accepted.length === 0 ? "takes no query parameters" : `takes only ${accepted.join(", ")}`;
      const shown = JSON.stringify(name.slice(0, parameterNameCharsShown));
      throw new TributaryError("INVALID_REQUEST", `unknown query parameter ${shown}: this route ${takes}${hint}`, { parameter: name.slice(0, parameterNameCharsShown) });
    }
    if (Object.hasOwn(query, name)) throw new TributaryError("INVALID_REQUEST", `query parameter ${name} is given more than once`, { parameter: name });
    query[name as Name] = value;
  }
  return query;
}

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
 * partition to answer 416); maxRecords (at most `maxRecordsMax`: a binary fetch's is
 * binaryFetchMaxRecordsMax), maxBytes and waitMs default and are bounded.
 */
export function fetchParams(query: Record<string, string | undefined>, maxRecordsMax = fetchMaxRecordsMax) {
  return {
    isolation: isolationParam(query.isolation),
    offset: integerParam("offset", query.offset, { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    maxRecords: integerParam("maxRecords", query.maxRecords, { min: 1, max: maxRecordsMax, fallback: fetchMaxRecordsDefault }),
    maxBytes: integerParam("maxBytes", query.maxBytes, { min: 1, max: fetchMaxBytesMax, fallback: fetchMaxBytesDefault }),
    waitMs: integerParam("waitMs", query.waitMs, { min: 0, max: fetchWaitMsMax, fallback: 0 }),
  };
}

/**
 * `at` of `GET …/offsets` (API.md): `earliest`, `latest`, or a timestamp in milliseconds
 * (the first offset whose record timestamp is at or after it); and, additions (docs/api.md),
 * `max-timestamp`, `earliest-local`, `latest-tiered` and `earliest-pending-upload`.
 */
export function offsetAtParam(text: string | undefined, leaderEpochText?: string): OffsetQuery {
  if (text === "epoch-end") {
    // An addition (docs/api.md): where a leader epoch ended, as Kafka's OffsetForLeaderEpoch answers.
    const epoch = leaderEpochText !== undefined && integerPattern.test(leaderEpochText) ? Number(leaderEpochText) : Number.NaN;
    if (!Number.isSafeInteger(epoch) || epoch < 0 || epoch > 2_147_483_647) throw new TributaryError("INVALID_REQUEST", "at=epoch-end needs leaderEpoch: an integer from 0");
    return { epochEnd: epoch };
  }
  if (leaderEpochText !== undefined) throw new TributaryError("INVALID_REQUEST", "leaderEpoch is taken only with at=epoch-end");
  if (text === "earliest" || text === "latest" || text === "max-timestamp" || text === "earliest-local" || text === "latest-tiered" || text === "earliest-pending-upload") return text;
  const what = "earliest, latest, max-timestamp, earliest-local, latest-tiered, earliest-pending-upload, epoch-end or a timestamp in milliseconds since the epoch (an integer from 0)";
  if (text === undefined || text === "") throw new TributaryError("INVALID_REQUEST", `at is required: ${what}`);
  const value = integerPattern.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 0) throw new TributaryError("INVALID_REQUEST", `at must be ${what}`);
  return { timestampMs: value };
}

/** `acks` as a query parameter (binary produce): 0, 1 or all; default all, as in a JSON body. */
export function acksParam(text: string | undefined): Acks {
  if (text === undefined || text === "all") return "all";
  if (text === "0") return 0;
  if (text === "1") return 1;
  throw new TributaryError("INVALID_REQUEST", "acks must be 0, 1 or all");
}

/** `encoding` of a JSON read: utf8 (the default) or base64. */
export function encodingParam(text: string | undefined): Encoding {
  const parsed = encodingSchema.safeParse(text ?? "utf8");
  if (!parsed.success) throw new TributaryError("INVALID_REQUEST", "encoding must be utf8 or base64");
  return parsed.data;
}

/** `decode` of a JSON read or SSE: `schema` (docs/api.md, Reading decoded), or absent. */
export function decodeParam(text: string | undefined): boolean {
  if (text === undefined) return false;
  if (text !== "schema") throw new TributaryError("INVALID_REQUEST", "decode must be schema (or absent)");
  return true;
}

/** `transactionalId` of a binary produce (docs/transactions.md): 1 to transactionalIdLengthMax characters. */
export function transactionalIdParam(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text.length === 0 || text.length > transactionalIdLengthMax) {
    throw new TributaryError("INVALID_REQUEST", `transactionalId is 1 to ${transactionalIdLengthMax} characters`);
  }
  return text;
}

/** `isolation` of a read (docs/transactions.md): read_committed (the default) or read_uncommitted. */
export function isolationParam(text: string | undefined): Isolation {
  if (text === undefined || text === "read_committed") return "read_committed";
  if (text === "read_uncommitted") return "read_uncommitted";
  throw new TributaryError("INVALID_REQUEST", `isolation is read_committed or read_uncommitted, not ${JSON.stringify(text.slice(0, 64))}`);
}

/**
 * `transactionPartitions` of a transactional binary produce (docs/transactions.md, "The produce
 * check"): more partitions of the topic for the router's check to add to the transaction with
 * this write's, comma-separated; absent, none. Only with `transactionalId`.
 */
export function transactionPartitionsParam(text: string | undefined, transactionalId: string | undefined): number[] {
  if (text === undefined) return [];
  if (transactionalId === undefined) throw new TributaryError("INVALID_REQUEST", "transactionPartitions goes with ?transactionalId=");
  const parts = text.split(",");
  if (parts.length > transactionPartitionsMax) throw new TributaryError("INVALID_REQUEST", `transactionPartitions names at most ${transactionPartitionsMax} partitions`);
  return [...new Set(parts.map((part) => integerParam("transactionPartitions", part, { min: 0, max: Number.MAX_SAFE_INTEGER })))];
}

/**
 * `commitAfterWrites` of a transactional binary produce (docs/transactions.md, "The commit
 * carried by the last writes"): the transaction commits once this many writes carrying it — this
 * one and the others sent with it, one per partition — are written; absent, none. Only with
 * `transactionalId`.
 */
export function commitAfterWritesParam(text: string | undefined, transactionalId: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (transactionalId === undefined) throw new TributaryError("INVALID_REQUEST", "commitAfterWrites goes with ?transactionalId=");
  return integerParam("commitAfterWrites", text, { min: 1, max: transactionPartitionsMax });
}
