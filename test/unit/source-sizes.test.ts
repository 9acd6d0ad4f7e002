import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./support/source-imports.ts";

// STYLE.md, "Sizes and names": small files that say what they hold, about 400 lines at most and
// never over 500 in src/; a longer file is split by concept (as src/limits.ts was, issue 31).

const sourceDirectory = fileURLToPath(new URL("../../src/", import.meta.url).href);
const linesMax = 500;

describe("the source's files", () => {
  it(`have at most ${linesMax} lines each`, () => {
    const files = sourceFiles(sourceDirectory);
    expect(files.length).toBeGreaterThan(300);
    const longer = files
      .map((file) => ({ file, lines: readFileSync(join(sourceDirectory, file), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > linesMax)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(longer).toEqual([]);
  });
});
