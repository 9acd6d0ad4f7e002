import { describe, expect, it } from "vitest";
import { jsonAppendValue, jsonReadBody } from "../../../src/durable-streams/json-messages.ts";
import { controlEvent, dataEvent } from "../../../src/durable-streams/sse-events.ts";
import { streamCursor } from "../../../src/durable-streams/stream-cursor.ts";
import { isTextual, mediaTypeOf, parseClosed, parseLifetime, parseProducer, parseStreamSeq } from "../../../src/durable-streams/stream-headers.ts";
import { formatStreamOffset, parseStreamOffset } from "../../../src/durable-streams/stream-offsets.ts";

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));
const status = (action: () => unknown) => {
  try {
    action();
    return "ok";
  } catch (error) {
    return (error as { status?: number }).status;
  }
};

describe("offsets", () => {
  it("are 16 digits, so string order is offset order", () => {
    expect(formatStreamOffset(0)).toBe("0000000000000000_0000000000000000");
    expect(formatStreamOffset(42)).toBe("0000000000000000_0000000000000042");
    expect(formatStreamOffset(9) < formatStreamOffset(10)).toBe(true);
    expect(parseStreamOffset([formatStreamOffset(42)])).toEqual({ kind: "at", offset: 42 });
  });

  it("take the sentinels -1 (and none) and now", () => {
    expect(parseStreamOffset([])).toEqual({ kind: "start" });
    expect(parseStreamOffset(["-1"])).toEqual({ kind: "start" });
    expect(parseStreamOffset(["now"])).toEqual({ kind: "now" });
  });

  it("refuse anything else, an empty one and a repeated one (400)", () => {
    for (const bad of [[""], ["0,1"], ["0 1"], ["../x"], ["42"], ["abc"], ["0000000000000042"], ["0000000000000000_00000000000000001"], ["9999999999999999_9999999999999999"], ["0000000000000001_0000000000000000"], ["a", "b"]]) {
      expect(status(() => parseStreamOffset(bad))).toBe(400);
    }
  });
});

describe("request headers", () => {
  it("Stream-TTL: decimal seconds without sign, leading zero, point or exponent", () => {
    expect(parseLifetime("3600", undefined)).toEqual({ ttlSeconds: 3600 });
    expect(parseLifetime("0", undefined)).toEqual({ ttlSeconds: 0 });
    for (const bad of ["-1", "+60", "00060", "60.5", "1e3", "abc", ""]) expect(status(() => parseLifetime(bad, undefined))).toBe(400);
  });

  it("Stream-Expires-At: RFC 3339 with a zone; both headers at once is 400", () => {
    expect(parseLifetime(undefined, "2030-01-01T00:00:00Z")).toEqual({ expiresAtMs: Date.UTC(2030, 0, 1) });
    expect(parseLifetime(undefined, "2030-01-01T02:00:00+02:00")).toEqual({ expiresAtMs: Date.UTC(2030, 0, 1) });
    expect(status(() => parseLifetime(undefined, "not-a-timestamp"))).toBe(400);
    expect(status(() => parseLifetime(undefined, "2030-01-01"))).toBe(400);
    expect(status(() => parseLifetime("60", "2030-01-01T00:00:00Z"))).toBe(400);
  });

  it("producer headers: all three or none, non-empty id, whole numbers within the batch fields", () => {
    expect(parseProducer(undefined, undefined, undefined)).toBeUndefined();
    expect(parseProducer("p", "0", "0")).toEqual({ id: "p", epoch: 0, seq: 0 });
    expect(status(() => parseProducer("p", "0", undefined))).toBe(400);
    expect(status(() => parseProducer("", "0", "0"))).toBe(400);
    for (const bad of ["-1", "1e3", "01", "1.5", "x", "32768"]) expect(status(() => parseProducer("p", bad, "0"))).toBe(400);
    expect(status(() => parseProducer("p", "0", String(2 ** 31)))).toBe(400);
  });

  it("Stream-Closed, Stream-Seq and content types", () => {
    expect(parseClosed(undefined)).toBe(false);
    expect(parseClosed("TRUE")).toBe(true);
    expect(status(() => parseClosed("yes"))).toBe(400);
    expect(parseStreamSeq("001")).toBe("001");
    expect(status(() => parseStreamSeq(""))).toBe(400);
    expect(mediaTypeOf("Application/JSON; charset=utf-8")).toBe("application/json");
    expect([isTextual("text/plain"), isTextual("application/json"), isTextual("application/octet-stream")]).toEqual([true, true, false]);
  });
});

describe("JSON mode", () => {
  it("flattens one level of an array into messages, stored as one array", () => {
    expect(text(jsonAppendValue(utf8.encode('{"event":"created"}')))).toBe('[{"event":"created"}]');
    expect(text(jsonAppendValue(utf8.encode('[{"a":1}, {"b":2}]')))).toBe('[{"a":1},{"b":2}]');
    expect(text(jsonAppendValue(utf8.encode("[[[1,2,3]]]")))).toBe("[[[1,2,3]]]");
    expect(jsonAppendValue(utf8.encode("[]"))).toBeUndefined();
    expect(status(() => jsonAppendValue(utf8.encode("{ invalid json }")))).toBe(400);
  });

  it("reads the messages of every stored array as one array", () => {
    const values = ['[{"a":1}]', '[1,"two",null]'].map((value) => utf8.encode(value));
    expect(JSON.parse(jsonReadBody(values))).toEqual([{ a: 1 }, 1, "two", null]);
    expect(jsonReadBody([])).toBe("[]");
  });
});

describe("SSE events and cursors", () => {
  it("sends every line of text as its own data: line, so CR or LF never ends an event", () => {
    expect(dataEvent("a\r\nevent: control\rdata: x\nb")).toBe("event: data\ndata:a\ndata:event: control\ndata:data: x\ndata:b\n\n");
    expect(controlEvent({ streamNextOffset: "0000000000000001", upToDate: true })).toBe('event: control\ndata:{"streamNextOffset":"0000000000000001","upToDate":true}\n\n');
  });

  it("counts 20 s intervals from 2024-10-09 and moves past a client's cursor that is not behind", () => {
    const now = Date.UTC(2024, 9, 9) + 1000 * 20_000;
    expect(streamCursor(now, undefined)).toBe("1000");
    expect(streamCursor(now, "999")).toBe("1000");
    expect(Number(streamCursor(now, "1000", () => 0))).toBe(1001);
    expect(Number(streamCursor(now, "1005", () => 0.999))).toBe(1005 + 180);
  });
});

describe("the ds.* topic configs", () => {
  it("are validated, kept when set, and shown by describe only when set", async () => {
    const { effectiveTopicConfigs, mergeTopicConfigs } = await import("../../../src/topics/topic-configs.ts");
    const configs = mergeTopicConfigs({}, { "ds.content.type": "application/json", "ds.expires.at.ms": "1800000000000", "ds.forked.from": "ds.a_2Fb", "retention.ms": "-1" });
    expect(effectiveTopicConfigs(configs)).toMatchObject({ "ds.content.type": "application/json", "ds.expires.at.ms": "1800000000000", "retention.ms": "-1" });
    expect(Object.keys(effectiveTopicConfigs({})).some((name) => name.startsWith("ds."))).toBe(false);
    for (const bad of [{ "ds.content.type": "no type" }, { "ds.ttl.seconds": "-1" }, { "ds.fork.refs": "1.5" }, { "ds.forked.from": "orders" }, { "ds.unknown": "1" }]) {
      expect(() => mergeTopicConfigs({}, bad)).toThrow(expect.objectContaining({ code: "INVALID_CONFIG" }));
    }
  });
});
