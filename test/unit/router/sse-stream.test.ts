/**
 * An SSE stream's lifetime (src/router/streams/sse-stream.ts, docs/api.md "Streaming reads"):
 * the server ends it after streamDurationMsMax, its last poll waiting no longer than what
 * remains, and releases its slot. The clock is the fake Date alone: no wall-clock waits.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { streamDurationMsMax, streamPollWaitMs } from "../../../src/limits.ts";
import { eventStreamResponse, type StreamSource } from "../../../src/router/streams/sse-stream.ts";

const startMs = 1_000_000_000;

describe("an SSE stream", () => {
  afterEach(() => void vi.useRealTimers());

  it("ends after streamDurationMsMax: the last poll waits what remains, then no poll, the stream closes and its slot is released", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(startMs);
    const waits: number[] = [];
    const source: StreamSource = {
      async next(waitMs) {
        waits.push(waitMs);
        return { frames: `event: records\nid: ${waits.length}\ndata: {}\n\n` };
      },
    };
    let released = 0;
    const reader = eventStreamResponse(source, { release: () => void released++ }).body!.getReader();
    const text = new TextDecoder();
    const read = async () => {
      const { done, value } = await reader.read();
      return done ? "(end)" : text.decode(value);
    };

    expect(await read()).toBe(": keepalive\n\n");
    expect(await read()).toContain("id: 1\n");
    expect(waits).toEqual([streamPollWaitMs]);

    vi.setSystemTime(startMs + streamDurationMsMax - 1_000);
    expect(await read()).toContain("id: 2\n");
    expect(waits).toEqual([streamPollWaitMs, 1_000]); // never past the bound
    expect(released).toBe(0);

    vi.setSystemTime(startMs + streamDurationMsMax);
    expect(await read()).toBe("(end)");
    expect(waits).toHaveLength(2); // no poll after the bound
    expect(released).toBe(1);
  });

  it("ends after a poll the source marks as the last (streamReadsMax), with its records sent first", async () => {
    const source: StreamSource = { next: async () => ({ frames: "event: records\nid: 7\ndata: {}\n\n", end: true }) };
    let released = 0;
    const reader = eventStreamResponse(source, { release: () => void released++ }).body!.getReader();
    const chunks: string[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(new TextDecoder().decode(chunk.value));
    expect(chunks).toEqual([": keepalive\n\n", "event: records\nid: 7\ndata: {}\n\n"]);
    expect(released).toBe(1);
  });
});
