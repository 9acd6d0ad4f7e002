import type { Acks, Encoding, ProduceRecord, ProduceRequest } from "./schemas.ts";

/**
 * The produce request's usual shape, checked by hand (the JSON produce hot path): what
 * `produceRequestSchema` answers for it, or undefined for anything else — an unknown or
 * idempotent producer's field, a value out of range, any invalid body — which the caller then
 * gives to the schema, so every refusal and its message stay the schema's. It never accepts
 * what the schema refuses (test/unit/protocol/produce-request-check.test.ts checks both
 * against each other). Under workerd, where zod cannot compile its object parsers, the schema
 * cost about a quarter of a millisecond per 1,000-record request.
 */
export function usualProduceRequest(json: unknown): ProduceRequest | undefined {
  if (!isPlainObject(json)) return undefined;
  let records: unknown;
  let acks: unknown = "all";
  let encoding: unknown = "utf8";
  for (const field in json) {
    const value = json[field];
    if (field === "records") records = value;
    else if (field === "acks") acks = value;
    else if (field === "encoding") encoding = value;
    else return undefined;
  }
  if (!Array.isArray(records) || records.length === 0) return undefined;
  if (acks !== 0 && acks !== 1 && acks !== "all") return undefined;
  if (encoding !== "utf8" && encoding !== "base64") return undefined;
  const checked: ProduceRecord[] = new Array<ProduceRecord>(records.length);
  for (let index = 0; index < records.length; index++) {
    const record = usualRecord(records[index]);
    if (record === undefined) return undefined;
    checked[index] = record;
  }
  return { records: checked, acks: acks as Acks, encoding: encoding as Encoding };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isStringOrNull = (value: unknown) => value === null || typeof value === "string";

/** One record of the usual shape: the record itself (headers as their entries), or undefined. */
function usualRecord(record: unknown): ProduceRecord | undefined {
  if (!isPlainObject(record)) return undefined;
  let hasValue = false;
  let headers: [string, string][] | undefined;
  for (const field in record) {
    const value = record[field];
    switch (field) {
      case "value":
        if (!isStringOrNull(value)) return undefined;
        hasValue = true;
        break;
      case "key":
        if (!isStringOrNull(value)) return undefined;
        break;
      case "partition":
        if (!Number.isSafeInteger(value) || (value as number) < 0) return undefined;
        break;
      case "timestamp":
        if (!Number.isSafeInteger(value)) return undefined;
        break;
      case "headers":
        headers = headerEntries(value);
        if (headers === undefined) return undefined;
        break;
      default:
        return undefined;
    }
  }
  if (!hasValue) return undefined;
  return headers === undefined ? (record as ProduceRecord) : ({ ...record, headers } as ProduceRecord);
}

function headerEntries(headers: unknown): [string, string][] | undefined {
  if (!isPlainObject(headers)) return undefined;
  const entries = Object.entries(headers);
  for (const [, value] of entries) if (typeof value !== "string") return undefined;
  return entries as [string, string][];
}
