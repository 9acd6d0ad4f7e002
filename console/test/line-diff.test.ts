import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffLines, splitLines, type LineDiff } from "../src/line-diff.ts";

/** The texts a diff describes: the old one from its same and removed lines, the new one from same and added. */
function sides(diff: LineDiff): { before: string[]; after: string[] } {
  return {
    before: diff.lines.filter((line) => line.kind !== "added").map((line) => line.text),
    after: diff.lines.filter((line) => line.kind !== "removed").map((line) => line.text),
  };
}

/** The longest common subsequence's length, by the textbook table: the oracle for minimality. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) table[i]![j] = a[i - 1] === b[j - 1] ? table[i - 1]![j - 1]! + 1 : Math.max(table[i - 1]![j]!, table[i]![j - 1]!);
  }
  return table[a.length]![b.length]!;
}

const schema = (fields: string[]) => JSON.stringify({ type: "record", name: "Order", fields: fields.map((name) => ({ name, type: "string" })) }, null, 2);

describe("line diff", () => {
  it("shows a field added to a schema as its added lines, with everything else the same", () => {
    const diff = diffLines(schema(["id", "customer"]), schema(["id", "customer", "note"]));
    expect(diff.aligned).toBe(true);
    expect(diff.removed).toBe(0);
    expect(diff.lines.filter((line) => line.kind === "added").map((line) => line.text)).toEqual(["    },", "    {", '      "name": "note",', '      "type": "string"']);
    expect(diff.lines[0]).toEqual({ kind: "same", text: "{", oldLine: 1, newLine: 1 });
    expect(diff.lines.at(-1)).toEqual({ kind: "same", text: "}", oldLine: 14, newLine: 18 });
  });

  it("numbers old lines and new lines each from 1", () => {
    const diff = diffLines("a\nb\nc", "a\nx\nc\nd");
    expect(diff.lines).toEqual([
      { kind: "same", text: "a", oldLine: 1, newLine: 1 },
      { kind: "removed", text: "b", oldLine: 2 },
      { kind: "added", text: "x", newLine: 2 },
      { kind: "same", text: "c", oldLine: 3, newLine: 3 },
      { kind: "added", text: "d", newLine: 4 },
    ]);
  });

  it("diffs empty texts, identical texts, and texts with nothing in common", () => {
    expect(diffLines("", "")).toEqual({ lines: [], aligned: true, added: 0, removed: 0 });
    expect(diffLines("a\nb", "a\nb").lines.every((line) => line.kind === "same")).toBe(true);
    expect(diffLines("", "a\nb")).toMatchObject({ added: 2, removed: 0, aligned: true });
    expect(diffLines("a\nb", "c\nd")).toMatchObject({ added: 2, removed: 2, aligned: true });
    expect(splitLines("a\r\nb\n")).toEqual(["a", "b"]);
  });

  it("gives up aligning beyond its bound of edits, and shows the texts as replaced whole", () => {
    const before = Array.from({ length: 50 }, (_, index) => `old ${index}`).join("\n");
    const after = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? `old ${index}` : `new ${index}`)).join("\n");
    const bounded = diffLines(before, after, 10);
    expect(bounded).toMatchObject({ aligned: false, removed: 49, added: 49 });
    expect(sides(bounded)).toEqual({ before: splitLines(before), after: splitLines(after) });
    expect(diffLines(before, after)).toMatchObject({ aligned: true, removed: 25, added: 25 });
  });

  it("always rebuilds both texts, with the fewest edits (n + m − 2·LCS)", () => {
    const lines = fc.array(fc.constantFrom("a", "b", "c", "{", "}", ""), { maxLength: 14 });
    fc.assert(
      fc.property(lines, lines, (before, after) => {
        const diff = diffLines(before.join("\n"), after.join("\n"));
        const expected = { before: splitLines(before.join("\n")), after: splitLines(after.join("\n")) };
        expect(sides(diff)).toEqual(expected);
        expect(diff.aligned).toBe(true);
        expect(diff.added + diff.removed).toBe(expected.before.length + expected.after.length - 2 * lcsLength(expected.before, expected.after));
      }),
      { numRuns: 500 },
    );
  });
});
