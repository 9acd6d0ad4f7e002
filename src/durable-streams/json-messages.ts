import { StreamError } from "./stream-errors.ts";

/**
 * JSON mode (the protocol's section 7.1). An append's body is one JSON value; an array is
 * flattened one level into its elements, each a message. The append's messages are stored as
 * one record whose value is their JSON array (valid JSON to every other reader of the topic);
 * a read answers the messages of its records as one array, joining the stored arrays' insides
 * without parsing them again.
 */

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

/**
 * The stored value of a JSON append, or undefined for an empty array: refused on POST (400),
 * the empty stream on PUT. Invalid JSON is 400.
 */
export function jsonAppendValue(body: Uint8Array): Uint8Array | undefined {
  let value: unknown;
  try {
    value = JSON.parse(utf8Decoder.decode(body));
  } catch {
    throw new StreamError(400, "the body is not valid JSON (this stream is application/json)");
  }
  const messages = Array.isArray(value) ? value : [value];
  if (messages.length === 0) return undefined;
  return utf8.encode(JSON.stringify(messages));
}

/** The JSON array a read answers: the messages of every stored array, in order. */
export function jsonReadBody(values: readonly Uint8Array[]): string {
  const parts: string[] = [];
  for (const value of values) {
    const text = utf8Decoder.decode(value);
    // A stored value is "[...]" as jsonAppendValue wrote it; "[]" never is.
    if (text.length > 2) parts.push(text.slice(1, -1));
  }
  return `[${parts.join(",")}]`;
}
