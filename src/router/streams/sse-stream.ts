import { streamDurationMsMax, streamPollWaitMs } from "../../limits.ts";
import { asTributaryError } from "../http-errors.ts";
import { errorFrame, eventStreamContentType, frameBytes, keepaliveFrame } from "./sse-format.ts";

/** What feeds an SSE stream: one long poll at a time. */
export interface StreamSource {
  /**
   * Waits at most `waitMs` for records; answers the frames to send ("" when none came) and
   * whether the stream ends after them. A thrown error becomes an `error` event that ends it.
   */
  next(waitMs: number): Promise<{ frames: string; end?: boolean }>;
}

/**
 * An SSE response fed by `source` (ARCHITECTURE.md decision 12: the router holds the stream).
 * Pull-driven: the next long poll starts only when the client has taken what came before
 * (backpressure; nothing queues in the router), so at most one poll is in flight and a stream
 * whose client went away — cancel, or the request's abort signal — starts no further poll.
 * First a keep-alive comment (it sends the headers at once), then one frame per poll: records,
 * or a keep-alive after an empty one (each poll waits under the keep-alive interval). Ended
 * by the server after `streamDurationMsMax`; `release` runs once when the stream is done for
 * any reason.
 */
export function eventStreamResponse(source: StreamSource, release: () => void, signal?: AbortSignal): Response {
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
        if (!end) {
          try {
            const step = await source.next(Math.min(streamPollWaitMs, remaining));
            frames = step.frames === "" ? keepaliveFrame : step.frames;
            end = step.end === true;
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
