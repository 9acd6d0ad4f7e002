/** Helpers of the golden-bytes codec tests: hex in, a request read (and written back to the same bytes), a response written as hex. */
import { expect } from "vitest";
import { messageSchemas } from "../../../../src/gateway/protocol/apis.ts";
import { messageCodec } from "../../../../src/gateway/protocol/codec.ts";
import { ByteReader, ByteWriter } from "../../../../src/gateway/protocol/primitives.ts";

export const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ""), "hex"));

/** The request `bytes` read at `version`; written back, they must be the same bytes. */
export function readRequest(key: number, version: number, bytes: Uint8Array): unknown {
  const decoded = messageCodec(messageSchemas.get(key)!, version).readRequest(new ByteReader(bytes));
  if (!decoded.ok) throw new Error(decoded.error);
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeRequest(writer, decoded.value);
  expect(Buffer.from(writer.finish()).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
  return decoded.value;
}

/** The response `body` written at `version`, as hex. */
export function writeResponse(key: number, version: number, body: Record<string, unknown>): string {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeResponse(writer, body);
  return Buffer.from(writer.finish()).toString("hex");
}
