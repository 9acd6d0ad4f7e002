import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, parseConfigLines, parseHeaderLines, prettySchema, renderDecoded, renderPayload, toHex } from "../src/format.ts";
import { keyMatches } from "../src/record-reads.ts";

const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

describe("console formatting", () => {
  it("pretty-prints JSON values, keeps other text, and shows hex for bytes that are not UTF-8 or when asked", () => {
    expect(renderPayload(base64('{"a":1,"b":[2]}'), "text")).toEqual({ kind: "json", text: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
    expect(renderPayload(base64("{not json"), "text")).toEqual({ kind: "text", text: "{not json" });
    expect(renderPayload(base64("héllo"), "text")).toEqual({ kind: "text", text: "héllo" });
    expect(renderPayload(btoa("\xff\xfe"), "text")).toEqual({ kind: "hex", text: "ff fe" });
    expect(renderPayload(base64("ab"), "hex")).toEqual({ kind: "hex", text: "61 62" });
    expect(renderPayload(null, "text")).toEqual({ kind: "null", text: "null" });
    expect(renderPayload("", "text")).toEqual({ kind: "text", text: "" });
  });

  it("shows a value its schema decoded (decode=schema) as JSON with its schema id, and another as usual with why it was not", () => {
    expect(renderDecoded({ id: 7, item: "tea" }, 3, undefined)).toEqual({ kind: "json", text: '{\n  "id": 7,\n  "item": "tea"\n}', note: "schema 3" });
    expect(renderDecoded("tea", 4, undefined)).toEqual({ kind: "json", text: '"tea"', note: "schema 4" });
    expect(renderDecoded(base64("raw"), undefined, "starts with byte 114, not Confluent's wire format's magic byte 0")).toEqual({
      kind: "text",
      text: "raw",
      note: "not decoded: starts with byte 114, not Confluent's wire format's magic byte 0",
    });
    expect(renderDecoded(null, undefined, undefined)).toEqual({ kind: "null", text: "null" });
    expect(renderPayload(base64("ab"), "schema")).toEqual({ kind: "text", text: "ab" });
    // The key filter matches a decoded key's JSON text, and a base64 key's UTF-8 as before.
    const record = { offset: 0, timestamp: 0, headers: {}, value: null };
    const decode = (text: string) => new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
    expect(keyMatches({ ...record, key: { customer: "c-9" } as unknown as string, keySchemaId: 2 }, "c-9", decode)).toBe(true);
    expect(keyMatches({ ...record, key: base64("c-9") }, "c-9", decode)).toBe(true);
    expect(keyMatches({ ...record, key: { customer: "c-8" } as unknown as string, keySchemaId: 2 }, "c-9", decode)).toBe(false);
  });

  it("formats bytes in binary units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(200 * 1024 * 1024)).toBe("200 MiB");
    expect(toHex(new Uint8Array([0, 15, 255]))).toBe("00 0f ff");
  });

  it("reads the forms' header and config lines, and says which line is wrong", () => {
    expect(parseHeaderLines("trace-id: abc:1\n\n__proto__: x")).toEqual({ headers: JSON.parse('{"trace-id":"abc:1","__proto__":"x"}') });
    expect(parseHeaderLines("ok: 1\nbroken")).toEqual({ error: 'header line 2 needs "name: value"' });
    expect(parseConfigLines("retention.ms=1000\ncleanup.policy = compact")).toEqual({ configs: { "retention.ms": "1000", "cleanup.policy": "compact" } });
    expect(parseConfigLines("=1")).toEqual({ error: 'config line 1 needs "name=value"' });
  });
});

describe("formatCount", () => {
  it("says one in the singular and any other count in the plural, with thousands separators", () => {
    expect(formatCount(1, "batch", "batches")).toBe("1 batch");
    expect(formatCount(0, "segment")).toBe("0 segments");
    expect(formatCount(12_345, "segment")).toBe("12,345 segments");
  });

  it("indents Avro and JSON schemas two spaces, and keeps Protobuf or text that is not JSON as it is", () => {
    expect(prettySchema('{"type":"record","name":"A","fields":[]}', undefined)).toBe('{\n  "type": "record",\n  "name": "A",\n  "fields": []\n}');
    expect(prettySchema('"string"', "AVRO")).toBe('"string"');
    expect(prettySchema('{"type":"object"}', "JSON")).toBe('{\n  "type": "object"\n}');
    expect(prettySchema('syntax = "proto3";\nmessage A {}', "PROTOBUF")).toBe('syntax = "proto3";\nmessage A {}');
    expect(prettySchema("{not json", "AVRO")).toBe("{not json");
  });
});
