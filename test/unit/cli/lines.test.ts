import { describe, expect, it } from "vitest";
import { byteLines, linesToMessages, splitKey } from "../../../src/cli/lines.ts";

async function lines(chunks: (string | Uint8Array)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const group of byteLines(chunks)) for (const line of group) out.push(Buffer.from(line).toString("latin1"));
  return out;
}

describe("byteLines", () => {
  it("splits at \\n only, keeping \\r, empty lines and any byte", async () => {
    expect(await lines(["a\r\n\nb", "\n"])).toEqual(["a\r", "", "b"]);
    expect(await lines([new Uint8Array([0xff, 0x0a, 0x00, 0xc3])])).toEqual(["\xff", "\x00\xc3"]);
  });

  it("joins a line split across chunks and keeps a last line without newline", async () => {
    expect(await lines(["he", "llo\nwor", "ld"])).toEqual(["hello", "world"]);
  });

  it("has no line for an empty input or a lone trailing newline", async () => {
    expect(await lines([])).toEqual([]);
    expect(await lines(["x\n"])).toEqual(["x"]);
  });

  it("copies lines, so reusing the chunk buffer changes nothing", async () => {
    const chunk = Buffer.from("abc\n");
    const out: Uint8Array[] = [];
    for await (const group of byteLines([chunk])) out.push(...group);
    chunk.fill(0);
    expect(Buffer.from(out[0]!).toString()).toBe("abc");
  });
});

describe("splitKey", () => {
  it("splits at the first separator; none: undefined", () => {
    const split = splitKey(Buffer.from("k::v::w"), Buffer.from("::"));
    expect([Buffer.from(split!.key).toString(), Buffer.from(split!.value).toString()]).toEqual(["k", "v::w"]);
    expect(splitKey(Buffer.from("novalue"), Buffer.from(":"))).toBeUndefined();
    expect(splitKey(Buffer.from("a:"), Buffer.from(":"))!.value.length).toBe(0);
  });
});

describe("linesToMessages", () => {
  const rules = { separator: Buffer.from("="), separatorText: "=", recordBytesMax: 10 };
  const text = (bytes: Uint8Array | string | null | undefined) => (bytes == null ? bytes : Buffer.from(bytes as Uint8Array).toString());

  it("makes a keyed record of each line, numbered from the first line's number", () => {
    const { messages, bytes, problem } = linesToMessages([Buffer.from("a=1"), Buffer.from("b=2=3")], 7, { ...rules, partition: 2 });
    expect(messages.map((m) => [text(m.key as Uint8Array), text(m.value as Uint8Array), m.partition])).toEqual([["a", "1", 2], ["b", "2=3", 2]]);
    expect(bytes).toBe(8);
    expect(problem).toBeUndefined();
  });

  it("answers the records before the first bad line, and that line's number and problem", () => {
    const missing = linesToMessages([Buffer.from("a=1"), Buffer.from("none"), Buffer.from("c=3")], 41, rules);
    expect(missing.messages).toHaveLength(1);
    expect(missing.problem).toMatchObject({ lineNumber: 42, message: 'line 42 has no key separator "="' });
    const large = linesToMessages([Buffer.from("k=123456789"), Buffer.from("k=1234567890")], 1, rules);
    expect(large.messages).toHaveLength(1); // key and value: 10 bytes fit, 11 do not
    expect(large.problem).toMatchObject({ lineNumber: 2, message: "line 2 is a record of 11 bytes, more than the topic's max.message.bytes (10)" });
  });
});
