/**
 * The Worker's bundle holds none of the console (STYLE.md: a browser app is its own room). Reads
 * what `npm run build` left in dist/ (wrangler's unminified bundle names each source file).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../../dist/", import.meta.url).href);

const read = (path: string) => {
  try {
    return readFileSync(join(dist, path), "utf8");
  } catch (error) {
    throw new Error(`dist/${path} is missing: run npm run build`, { cause: error });
  }
};

describe("the Worker's bundle and the console's", () => {
  it("keeps the console's code, Preact and uPlot out of the Worker", () => {
    const worker = read("worker/index.js");
    expect(worker).toContain("// src/app.ts");
    for (const marker of ["console/src/", "node_modules/preact", "node_modules/uplot"]) expect(worker).not.toContain(marker);
    expect(read("console/index.html")).toContain('src="/assets/main.js"');
  });
});
