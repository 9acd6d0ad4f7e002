import { TributaryError } from "../../errors.ts";
import { partitionsPerTopicMax } from "../../limits.ts";

/**
 * The `id` of a whole-topic SSE event: every partition's next offset, so `Last-Event-ID`
 * resumes each exactly. Opaque to clients (docs/api.md); compact, since browsers resend it on
 * every reconnect: the topic id's first 8 hex digits (an id from a topic since deleted and
 * created again under the same name is refused), then each partition's offset in base 36, in
 * partition order, separated by dots — `3f2a9c1b.0.1a.2f`. Parsed strictly: anything else
 * is 400 INVALID_REQUEST before the stream starts.
 */

const tagLength = 8;
const offsetPattern = /^(0|[1-9a-z][0-9a-z]{0,10})$/;

function topicTag(topicId: string): string {
  return topicId.replaceAll("-", "").slice(0, tagLength).toLowerCase();
}

export function encodeTopicPositions(topicId: string, offsets: readonly number[]): string {
  return [topicTag(topicId), ...offsets.map((offset) => offset.toString(36))].join(".");
}

/** The offsets an id names, one per partition from 0; at most as many as the topic has. */
export function decodeTopicPositions(id: string, topicId: string, partitions: number): number[] {
  const invalid = (why: string) => new TributaryError("INVALID_REQUEST", `Last-Event-ID is not an id this topic's stream sent: ${why}`);
  const [tag, ...parts] = id.trim().split(".");
  if (tag !== topicTag(topicId)) throw invalid("it is of another topic (or not an id)");
  if (parts.length === 0 || parts.length > Math.min(partitions, partitionsPerTopicMax)) throw invalid("it names more partitions than the topic has");
  return parts.map((part) => {
    const offset = offsetPattern.test(part) ? Number.parseInt(part, 36) : Number.NaN;
    if (!Number.isSafeInteger(offset)) throw invalid("an offset is malformed");
    return offset;
  });
}
