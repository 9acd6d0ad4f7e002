import { encodeBase64 } from "../protocol/base64.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { ProduceRecord } from "../protocol/schemas.ts";
import type { DeadLetterReason } from "./delivery-plan.ts";

const utf8 = new TextDecoder();

/** Where a dead letter came from and why (docs/api.md: the `tributary.dlq.*` headers, decimal strings). */
export interface DeadLetterSource {
  topic: string;
  partition: number;
  deliveryCount: number;
  reason: DeadLetterReason;
}

/**
 * A record given up on, as a produce request's record for the dead-letter topic: its key,
 * value (base64: bytes kept as they are) and headers, plus the `tributary.dlq.*` headers,
 * which replace any of those names the record carried. Its timestamp is kept.
 */
export function deadLetterRecord(record: DecodedRecord, source: DeadLetterSource): ProduceRecord {
  const headers: Record<string, string> = {};
  for (const header of record.headers) {
    if (header.value !== null && !header.key.startsWith("tributary.dlq.")) headers[header.key] = utf8.decode(header.value);
  }
  Object.assign(headers, {
    "tributary.dlq.topic": source.topic,
    "tributary.dlq.partition": String(source.partition),
    "tributary.dlq.offset": String(record.offset),
    "tributary.dlq.delivery-count": String(source.deliveryCount),
    "tributary.dlq.reason": source.reason,
  });
  return {
    key: record.key === null ? null : encodeBase64(record.key),
    value: record.value === null ? null : encodeBase64(record.value),
    headers: Object.entries(headers),
    timestamp: record.timestamp,
  };
}
