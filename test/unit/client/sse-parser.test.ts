import { describe, expect, it } from "vitest";
import { SseParser, sseLineCharsMax } from "../../../src/client/sse-parser.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Every event of `chunks` fed one after the other. */
function parse(...chunks: (string | Uint8Array)[]) {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(typeof chunk === "string" ? bytes(chunk) : chunk));
  parser.end();
  return events;
}

describe("SseParser", () => {
  it("dispatches an event at a blank line, with its type, data and id", () => {
    expect(parse("event: records\nid: 5\ndata: {\"a\":1}\n\n")).toEqual([{ type: "records", data: '{"a":1}', lastEventId: "5" }]);
  });

  it("takes CRLF, LF and CR alike as line ends", () => {
    const expected = [{ type: "e", data: "x", lastEventId: "" }];
    expect(parse("event: e\r\ndata: x\r\n\r\n")).toEqual(expected);
    expect(parse("event: e\rdata: x\r\r")).toEqual(expected);
    expect(parse("event: e\ndata: x\r\n\n")).toEqual(expected);
  });

  it("keeps a CRLF split across chunks one line end (not an extra blank line)", () => {
    expect(parse("data: a\r", "\ndata: b\r", "\n\r", "\n")).toEqual([{ type: "message", data: "a\nb", lastEventId: "" }]);
  });

  it("joins data lines with LF, drops one leading space only, and reads a field without a colon as empty", () => {
    expect(parse("data:  two spaces\ndata\ndata:none\n\n")).toEqual([{ type: "message", data: " two spaces\n\nnone", lastEventId: "" }]);
  });

  it("ignores comments (keep-alives) and unknown fields, and dispatches nothing for an event without data", () => {
    expect(parse(": keepalive\n\n", "event: records\nfoo: bar\n\n", ":x\ndata: y\n\n")).toEqual([{ type: "message", data: "y", lastEventId: "" }]);
  });

  it("keeps the last id for later events, and ignores an id holding NUL", () => {
    const events = parse("id: 7\ndata: a\n\n", "data: b\n\n", "id: 8\0\ndata: c\n\n", "id\ndata: d\n\n");
    expect(events.map((event) => event.lastEventId)).toEqual(["7", "7", "7", ""]);
  });

  it("reads lines and UTF-8 characters split anywhere across chunks, and drops one leading BOM", () => {
    const whole = bytes("\uFEFFevent: records\nid: 1\ndata: é€😀\n\n");
    const chunks = Array.from(whole, (byte) => new Uint8Array([byte]));
    expect(parse(...chunks)).toEqual([{ type: "records", data: "é€😀", lastEventId: "1" }]);
  });

  it("drops a last event whose blank line never came (the stream ended mid-event)", () => {
    expect(parse("data: whole\n\ndata: cut")).toEqual([{ type: "message", data: "whole", lastEventId: "" }]);
  });

  it("takes the server's retry time only when it is digits", () => {
    const parser = new SseParser();
    parser.push(bytes("retry: 1500\n\nretry: 2s\n\n"));
    expect(parser.retryMs).toBe(1500);
  });

  it("refuses a line that never ends rather than growing without bound", () => {
    const parser = new SseParser();
    const chunk = bytes("x".repeat(1024 * 1024));
    expect(() => {
      for (let i = 0; i <= sseLineCharsMax / chunk.length; i++) parser.push(chunk);
    }).toThrow(RangeError);
  });
});
