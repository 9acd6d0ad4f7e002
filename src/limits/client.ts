import { streamWindowBytesMax } from "./streams.ts";

/**
 * Bounds of the TypeScript client's own choices (src/client/); the server's bounds it checks
 * before sending are in the files of their concepts.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

// ---- The client's WebSocket streams: catching up over fetches (src/client/stream-catch-up.ts) ----

/**
 * A client's WebSocket stream (the group consumer's default) that opens this many records or
 * more behind the high watermark first catches up over binary fetches, then opens its socket
 * near the head (src/client/stream-catch-up.ts). Fetches of sealed offsets are served by the
 * router from R2 (ARCHITECTURE decision 11) without a partition object request, and go one
 * ahead of the consumer, where a socket's history comes through the partition object in
 * window-bounded frames (and, on Node, deflated by the runtime: 3–5 × slower measured on
 * this machine). One fetch's worth: less than this behind, the socket alone is as cheap.
 */
export const streamCatchUpRecordsMin = 10_000;

/** A catch-up fetch's bytes at most: the stream's largest window, so catching up holds no more than a socket may. */
export const streamCatchUpFetchBytes = streamWindowBytesMax;
