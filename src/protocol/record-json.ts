import { encodeBase64 } from "./base64.ts";
import type { DecodedRecord } from "./record-batch.ts";
import type { Encoding } from "./schemas.ts";

const utf8 = new TextDecoder();

/** A record as API.md's JSON (fetch, poll, streams): keys and values as UTF-8 text or base64. */
export function recordJson(record: DecodedRecord, encoding: Encoding) {
  const text = (bytes: Uint8Array | null) =>
    bytes === null ? null : encoding === "base64" ? encodeBase64(bytes) : utf8.decode(bytes);
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: text(record.key),
    value: text(record.value),
    // fromEntries defines own properties, so a header named "__proto__" stays a header.
    headers: Object.fromEntries(
      record.headers.map((header) => [header.key, header.value === null ? null : utf8.decode(header.value)]),
    ),
  };
}
