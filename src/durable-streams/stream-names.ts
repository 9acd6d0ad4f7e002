import { topicNameLengthMax } from "../limits.ts";
import { StreamError } from "./stream-errors.ts";

/**
 * Stream paths ↔ topic names (docs/durable-streams.md). A stream's path under the base path
 * (`/ds/chat/room-1` → `chat/room-1`) names the topic `ds.` + its UTF-8 bytes, where ASCII
 * letters, digits and `-` stand for themselves and every other byte — `/`, `.`, `_` included —
 * is `_` and two upper-case hex digits (`chat_2Froom-1`). Decoding is unambiguous, so the map
 * is injective; and no two stream topics differ only in `.` against `_` (Kafka's collision
 * rule, src/topics/topic-names.ts), since a stream topic's only `.` is its prefix's.
 */
export const streamTopicPrefix = "ds.";

const plainByte = /^[A-Za-z0-9-]$/;
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The topic of the stream at `path` (percent-decoded, without the base path's slash); 400 when there is none. */
export function streamTopicName(path: string): string {
  if (path === "") throw new StreamError(400, "a stream path names a stream: PUT /ds/<path>");
  let name = streamTopicPrefix;
  for (const byte of utf8.encode(path)) {
    const char = String.fromCharCode(byte);
    name += plainByte.test(char) ? char : `_${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (name.length > topicNameLengthMax) {
    throw new StreamError(400, `the stream path is too long: its topic name would have ${name.length} characters, at most ${topicNameLengthMax}`);
  }
  return name;
}

/** The stream path a topic name stands for, or undefined when the name is no stream topic's. */
export function streamPathOf(topic: string): string | undefined {
  if (!topic.startsWith(streamTopicPrefix)) return undefined;
  const bytes: number[] = [];
  const body = topic.slice(streamTopicPrefix.length);
  for (let at = 0; at < body.length; ) {
    const char = body[at]!;
    if (char === "_") {
      const hex = body.slice(at + 1, at + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      at += 3;
    } else if (plainByte.test(char)) {
      bytes.push(char.charCodeAt(0));
      at += 1;
    } else {
      return undefined;
    }
  }
  try {
    const path = utf8Strict.decode(new Uint8Array(bytes));
    return path === "" ? undefined : path;
  } catch {
    return undefined;
  }
}
