import { TributaryError } from "../../errors.ts";
import { streamsPerTokenMax } from "../../limits.ts";

/** Open SSE streams in this router isolate, by credential (docs/api.md: per router instance for SSE). */
const openStreams = new Map<string, number>();

/**
 * Takes one of the credential's stream slots, or refuses with 429 THROTTLING_QUOTA_EXCEEDED
 * past `streamsPerTokenMax`. Answers the release, which frees the slot once however often it
 * is called (the stream ends, errs or its client goes away).
 */
export function takeStreamSlot(credential: string): () => void {
  const open = openStreams.get(credential) ?? 0;
  if (open >= streamsPerTokenMax) {
    throw new TributaryError(
      "THROTTLING_QUOTA_EXCEEDED",
      `this token already holds ${streamsPerTokenMax} open streams here; close one or retry later`,
      { retryAfterMs: 1_000 },
    );
  }
  openStreams.set(credential, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openStreams.get(credential) ?? 1) - 1;
    if (left <= 0) openStreams.delete(credential);
    else openStreams.set(credential, left);
  };
}
