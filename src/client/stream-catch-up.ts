/**
 * Catching up before a WebSocket stream opens (docs/client.md, "Streams"): a stream that
 * starts far behind the high watermark reads its history with binary fetches first — one
 * fetch ahead of the consumer — and ends this connection once less than one fetch's worth is
 * left, so that `resuming` (stream.ts) opens the socket where it stopped. Sealed offsets are
 * then served by the router from R2 rather than pushed by the partition object.
 */
import { streamCatchUpRecordsMin } from "../limits.ts";
import type { StreamConnection, StreamFrame } from "./stream-sse.ts";
import type { FetchResult } from "./types.ts";

/** A binary fetch of one partition from `offset` (topic(t).fetch with the catch-up bounds). */
export type CatchUpFetch = (offset: number, signal: AbortSignal) => Promise<FetchResult>;

/** Whether a stream at `position` with the partition's high watermark at `latest` catches up by fetching first. */
export function needsCatchUp(position: number, latest: number): boolean {
  return latest - position >= streamCatchUpRecordsMin;
}

/**
 * A connection whose frames are fetch answers from `from` on: the next fetch is asked for as
 * soon as an answer arrives (while the consumer takes its records); it ends after the answer
 * that leaves fewer than streamCatchUpRecordsMin records to the high watermark.
 */
export function catchUpConnection(fetch: CatchUpFetch, stream: { topic: string; partition: number; from: number; signal?: AbortSignal }): StreamConnection {
  const stop = new AbortController();
  const signal = stream.signal ? AbortSignal.any([stop.signal, stream.signal]) : stop.signal;
  let ahead: Promise<FetchResult> | undefined;
  const ask = (offset: number) => {
    const asked = fetch(offset, signal);
    asked.catch(() => {}); // awaited by next(); a read still out when the connection closes is dropped
    return asked;
  };
  let position = stream.from;
  let ended = false;
  ahead = ask(position);
  return {
    async next(): Promise<StreamFrame | undefined> {
      if (ended || ahead === undefined) return undefined;
      const answer = await ahead;
      ahead = undefined;
      const records = answer.records.map((record) => ({ ...record, topic: stream.topic, partition: stream.partition }));
      const progressed = answer.nextOffset > position;
      position = Math.max(position, answer.nextOffset);
      if (!progressed || answer.highWatermark - position < streamCatchUpRecordsMin) ended = true;
      else ahead = ask(position);
      return { records, resumeId: String(position), positions: new Map([[stream.partition, position]]) };
    },
    close() {
      ended = true;
      stop.abort(new Error("the catch-up connection was closed"));
    },
  };
}
