import { streamProducerEpochMax, streamProducerIdLengthMax, streamProducerSeqMax, streamSeqLengthMax, streamTtlSecondsMax } from "../limits.ts";
import { StreamError } from "./stream-errors.ts";

/** The request headers of the protocol, parsed and bounded (docs/durable-streams.md); bad ones are 400 before anything is written. */

export const defaultContentType = "application/octet-stream";

/** A content type's media type, lower-cased, without parameters: what two content types are compared by. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

/** JSON mode (the protocol's section 7.1): the stream's media type is application/json. */
export function isJsonMode(contentType: string): boolean {
  return mediaTypeOf(contentType) === "application/json";
}

/** SSE sends text and JSON as they are; every other type base64-encoded. */
export function isTextual(contentType: string): boolean {
  const media = mediaTypeOf(contentType);
  return media.startsWith("text/") || media === "application/json";
}

const mediaTypePattern = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** A given Content-Type, checked (trimmed, at most 255 characters, a type/subtype). */
export function checkContentType(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length > 255 || !mediaTypePattern.test(mediaTypeOf(trimmed))) throw new StreamError(400, `Content-Type ${JSON.stringify(value)} is not a media type`);
  return trimmed;
}

const decimalPattern = /^(0|[1-9][0-9]*)$/;
const rfc3339Pattern = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export interface StreamLifetime {
  ttlSeconds?: number;
  expiresAtMs?: number;
}

/** Stream-TTL (decimal seconds, no sign or leading zero) or Stream-Expires-At (RFC 3339); both at once is 400. */
export function parseLifetime(ttl: string | undefined, expiresAt: string | undefined): StreamLifetime {
  if (ttl !== undefined && expiresAt !== undefined) throw new StreamError(400, "give Stream-TTL or Stream-Expires-At, not both");
  if (ttl !== undefined) {
    if (!decimalPattern.test(ttl) || Number(ttl) > streamTtlSecondsMax) throw new StreamError(400, `Stream-TTL ${JSON.stringify(ttl)} is not a whole number of seconds up to ${streamTtlSecondsMax}`);
    return { ttlSeconds: Number(ttl) };
  }
  if (expiresAt !== undefined) {
    const ms = Date.parse(expiresAt);
    if (!rfc3339Pattern.test(expiresAt) || !Number.isFinite(ms)) throw new StreamError(400, `Stream-Expires-At ${JSON.stringify(expiresAt)} is not an RFC 3339 timestamp`);
    return { expiresAtMs: ms };
  }
  return {};
}

/** Stream-Closed: `true` closes (case-insensitive); absent or `false` does not. */
export function parseClosed(value: string | undefined): boolean {
  if (value === undefined) return false;
  const lower = value.trim().toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  throw new StreamError(400, `Stream-Closed is true or false, not ${JSON.stringify(value)}`);
}

export function parseStreamSeq(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > streamSeqLengthMax) throw new StreamError(400, `Stream-Seq is 1 to ${streamSeqLengthMax} characters`);
  return value;
}

export interface ProducerHeaders {
  id: string;
  epoch: number;
  seq: number;
}

function producerNumber(name: string, value: string, max: number): number {
  if (!decimalPattern.test(value) || Number(value) > max) throw new StreamError(400, `${name} ${JSON.stringify(value)} is not a whole number up to ${max}`);
  return Number(value);
}

/** Producer-Id, Producer-Epoch and Producer-Seq: all three or none. */
export function parseProducer(id: string | undefined, epoch: string | undefined, seq: string | undefined): ProducerHeaders | undefined {
  if (id === undefined && epoch === undefined && seq === undefined) return undefined;
  if (id === undefined || epoch === undefined || seq === undefined) throw new StreamError(400, "Producer-Id, Producer-Epoch and Producer-Seq come together");
  if (id.length === 0 || id.length > streamProducerIdLengthMax) throw new StreamError(400, `Producer-Id is 1 to ${streamProducerIdLengthMax} characters`);
  return { id, epoch: producerNumber("Producer-Epoch", epoch, streamProducerEpochMax), seq: producerNumber("Producer-Seq", seq, streamProducerSeqMax) };
}
