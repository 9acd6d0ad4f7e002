import { encodeBase64 } from "../../../../src/protocol/base64.ts";
import type { DecodedRecord } from "../../../../src/protocol/record-batch.ts";

/** API.md's answers as the fake server builds them: JSON bodies and error bodies (Retry-After on 429 and 503). */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const apiError = (status: number, code: string, message: string, data: Record<string, unknown> = {}) =>
  json(status, { error: { ...data, code, message } }, status === 503 || status === 429 ? { "retry-after": "1" } : {});

/** A stored record as a group poll or a share fetch answers it with `encoding: "base64"`. */
export const base64Record = (topic: string, partition: number, record: DecodedRecord) => ({
  topic,
  partition,
  offset: record.offset,
  timestamp: record.timestamp,
  key: record.key === null ? null : encodeBase64(record.key),
  value: record.value === null ? null : encodeBase64(record.value),
  headers: Object.fromEntries(record.headers.map((h) => [h.key, new TextDecoder().decode(h.value ?? new Uint8Array())])),
});
