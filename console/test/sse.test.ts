import { describe, expect, it } from "vitest";
import { SseParser } from "../src/sse.ts";

describe("the console's SSE parser", () => {
  it("completes events across chunk boundaries, skips comments, joins data lines and keeps the last id", () => {
    const parser = new SseParser();
    expect(parser.push(": keepalive\n\nevent: rec")).toEqual([]);
    expect(parser.push('ords\nid: 7\ndata: {"a":\ndata: 1}\r\n')).toEqual([]);
    expect(parser.push("\r\n")).toEqual([{ event: "records", id: "7", data: '{"a":\n1}' }]);
    expect(parser.push("data:x\n\nevent: error\ndata: {}\n\n")).toEqual([
      { event: "message", id: "7", data: "x" },
      { event: "error", id: "7", data: "{}" },
    ]);
  });
});
