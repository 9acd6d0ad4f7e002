/**
 * Whole requests and responses: the request header (v1, or v2 with tagged fields in flexible
 * versions) before a request body, the response header (v0, or v1 with tagged fields; v0
 * always for ApiVersions, so a client that does not know the broker's versions can read it),
 * and the int32 size of a frame.
 */
import { messageCodec, type Decoded } from "./codec.ts";
import { messageSchemas, apiKeys } from "./apis.ts";
import { ByteReader, ByteWriter, MalformedInput } from "./primitives.ts";

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** A request frame read: its header, and its body decoded when the gateway knows that API at that version. */
export type ReadRequest =
  /** `trailingBytes`: bytes after the request's last field, ignored as Kafka's broker ignores them. */
  | { kind: "request"; header: RequestHeader; body: Record<string, unknown>; trailingBytes: number }
  /** An API key or version the gateway has no layout for: the header is all it can read. */
  | { kind: "unsupported"; header: RequestHeader };

function isFlexible(apiKey: number, version: number): boolean {
  const schema = messageSchemas.get(apiKey);
  return schema !== undefined && schema.flexibleFrom !== null && version >= schema.flexibleFrom;
}

function supports(apiKey: number, version: number): boolean {
  const schema = messageSchemas.get(apiKey);
  return schema !== undefined && version >= schema.versions[0] && version <= schema.versions[1];
}

/** Reads one request frame (without its size); a truncated or corrupted one is an error value. */
export function readRequest(frame: Uint8Array): Decoded<ReadRequest> {
  const reader = new ByteReader(frame);
  let header: RequestHeader;
  try {
    header = { apiKey: reader.int16(), apiVersion: reader.int16(), correlationId: reader.int32(), clientId: reader.string(false) };
    if (!supports(header.apiKey, header.apiVersion)) return { ok: true, value: { kind: "unsupported", header } };
    if (isFlexible(header.apiKey, header.apiVersion)) skipTaggedFields(reader);
  } catch (error) {
    if (error instanceof MalformedInput) return { ok: false, error: `request header: ${error.message}` };
    throw error;
  }
  const body = messageCodec(messageSchemas.get(header.apiKey)!, header.apiVersion).readRequest(reader);
  if (!body.ok) return { ok: false, error: `${schemaName(header.apiKey)} v${header.apiVersion}: ${body.error}` };
  return { ok: true, value: { kind: "request", header, body: body.value, trailingBytes: reader.remaining } };
}

function skipTaggedFields(reader: ByteReader): void {
  const count = reader.uvarint();
  for (let i = 0; i < count; i++) {
    reader.uvarint();
    reader.raw(reader.uvarint());
  }
}

export function schemaName(apiKey: number): string {
  return messageSchemas.get(apiKey)?.name ?? `API ${apiKey}`;
}

/** A whole response frame, size first, as pieces to write in turn (record batches are not copied). */
export function writeResponse(header: { apiKey: number; apiVersion: number; correlationId: number }, body: Record<string, unknown>): Uint8Array[] {
  const writer = new ByteWriter(256);
  writer.int32(0);
  writer.int32(header.correlationId);
  if (header.apiKey !== apiKeys.ApiVersions && isFlexible(header.apiKey, header.apiVersion)) writer.uvarint(0);
  messageCodec(messageSchemas.get(header.apiKey)!, header.apiVersion).writeResponse(writer, body);
  writer.patchFirstInt32(writer.length - 4);
  return writer.chunks();
}

/** A whole request frame, size first (tests, the bench: the gateway itself only reads requests). */
export function writeRequest(header: RequestHeader, body: Record<string, unknown>): Uint8Array {
  const writer = new ByteWriter(256);
  writer.int32(0);
  writer.int16(header.apiKey);
  writer.int16(header.apiVersion);
  writer.int32(header.correlationId);
  writer.string(header.clientId, false);
  if (isFlexible(header.apiKey, header.apiVersion)) writer.uvarint(0);
  messageCodec(messageSchemas.get(header.apiKey)!, header.apiVersion).writeRequest(writer, body);
  writer.patchFirstInt32(writer.length - 4);
  return writer.finish();
}

/** Reads a response frame's body (without its size) for a request of `apiKey` at `apiVersion` (tests). */
export function readResponse(frame: Uint8Array, apiKey: number, apiVersion: number): Decoded<{ correlationId: number; body: Record<string, unknown> }> {
  const reader = new ByteReader(frame);
  try {
    const correlationId = reader.int32();
    if (apiKey !== apiKeys.ApiVersions && isFlexible(apiKey, apiVersion)) skipTaggedFields(reader);
    const body = messageCodec(messageSchemas.get(apiKey)!, apiVersion).readResponse(reader);
    return body.ok ? { ok: true, value: { correlationId, body: body.value } } : body;
  } catch (error) {
    if (error instanceof MalformedInput) return { ok: false, error: error.message };
    throw error;
  }
}
