import { streamDurationMsMax, streamPollWaitMs } from "../../limits.ts";
import { asTributaryError } from "../../errors.ts";
import type { StreamQuota } from "../quotas.ts";
import { errorFrame, eventStreamContentType, frameBytes, keepaliveFrame } from "./sse-format.ts";

/** What feeds an SSE stream: one long poll at a time. */
export interface StreamSource {
  /**
   * Waits at most `waitMs` for records; answers the frames to send ("" when none came), the
   * records' payload bytes (for the fetch quota) and whether the stream ends after them. A
   * thrown error becomes an `error` event that ends it.
   */
  next(waitMs: number): Promise<{ frames: string; fetchedBytes?: number; end?: boolean }>;
}

export interface StreamLifetime {
  /** Runs once when the stream is done, for any reason (its slot: src/router/streams/stream-slots.ts). */
  release: () => void;
  /** The request's abort signal: the client went away. */
  signal?: AbortSignal;
  /** The token's fetch quota, when it has one. */
  quota?: StreamQuota | undefined;
}

/**
 * An SSE response fed by `source` (ARCHITECTURE.md decision 12: the router holds the stream).
 * Pull-driven: the next long poll starts only when the client has taken what came before
 * (backpressure; nothing queues in the router), so at most one poll is in flight and a stream
 * whose client went away — cancel, or the request's abort signal — starts no further poll.
 * First a keep-alive comment (it sends the headers at once), then one frame per poll: records,
 * or a keep-alive after an empty one (each poll waits under the keep-alive interval). Ended
 * by the server after `streamDurationMsMax`. While the token's fetch quota is throttled, the
 * stream sends keep-alives instead of polling.
 */
export function eventStreamResponse(source: StreamSource, { release, signal, quota }: StreamLifetime): Response {
  const deadline = Date.now() + streamDurationMsMax;
  let done = false;
  let started = false;
  const finish = () => {
    done = true;
    release();
  };
  signal?.addEventListener("abort", finish);
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) return;
        if (!started) {
          started = true;
          controller.enqueue(frameBytes(keepaliveFrame));
          return;
        }
        const remaining = deadline - Date.now();
        let frames = "";
        let end = remaining <= 0;
        const throttledMs = quota?.throttledMs() ?? 0;
        if (!end && throttledMs > 0) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(throttledMs, streamPollWaitMs, remaining)));
          frames = keepaliveFrame;
        } else if (!end) {
          try {
            const step = await source.next(Math.min(streamPollWaitMs, remaining));
            frames = step.frames === "" ? keepaliveFrame : step.frames;
            end = step.end === true;
            quota?.record(step.fetchedBytes ?? 0);
          } catch (error) {
            frames = errorFrame(asTributaryError(error));
            end = true;
          }
        }
        if (done) return; // the client went away while the poll waited
        if (frames !== "") controller.enqueue(frameBytes(frames));
        if (end) {
          finish();
          controller.close();
        }
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, {
    headers: { "content-type": eventStreamContentType, "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
