import { describe, expect, it } from "vitest";
import { byteLines, splitKey } from "../../../src/cli/lines.ts";

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
