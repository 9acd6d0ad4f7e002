import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { circles, edgesWithin, importGraph, importSpecifiers, roomGraph, roomOf } from "./support/source-imports.ts";

// STYLE.md, "Rooms read top to bottom, with no circle between them or between files": router →
// data plane → contracts ← objects, and no two files that need each other. Type imports count: a
// pure room that imports upward "only for a type" still reads upward.

const sourceDirectory = fileURLToPath(new URL("../../src/", import.meta.url).href);

/** One line per circle: its members, then the imports that close it. */
function describeCircles(graph: Map<string, Set<string>>, found: string[][], nodeOf?: (file: string) => string): string[] {
  return found.map((circle) => [circle.join(" ↔ "), ...edgesWithin(graph, circle, nodeOf).map((edge) => `  ${edge}`)].join("\n"));
}

describe("the source's import graph", () => {
  const files = importGraph(sourceDirectory);

  it("has no circle between the rooms (top-level folders and files) of src/", () => {
    const rooms = roomGraph(files);
    expect(describeCircles(files, circles(rooms), roomOf)).toEqual([]);
  });

  it("has no circle between the files of src/", () => {
    expect(describeCircles(files, circles(files))).toEqual([]);
  });

  it("reaches objects only through contracts: no file of the router, the data plane or the contracts imports one", () => {
    const callers = new Set(["app.ts", "service.ts", "router", "durable-streams", "registry-api", "data-plane", "contracts"]);
    const imports = [...files].flatMap(([file, targets]) =>
      callers.has(roomOf(file)) ? [...targets].filter((target) => roomOf(target) === "objects").map((target) => `${file} → ${target}`) : [],
    );
    expect(imports).toEqual([]);
  });

  it("keeps the pure core pure: its rooms import only each other, the errors and the limits", () => {
    const pure = new Set(["auth", "group", "log", "metrics", "protocol", "quota", "registry", "replication", "share", "subscriptions", "topics", "transactions"]);
    const allowed = new Set([...pure, "errors.ts", "limits.ts", "limits"]);
    const imports = [...files].flatMap(([file, targets]) =>
      pure.has(roomOf(file)) ? [...targets].filter((target) => !allowed.has(roomOf(target))).map((target) => `${file} → ${target}`) : [],
    );
    expect(imports).toEqual([]);
  });

  it("takes every bound through src/limits.ts, never from a file of src/limits/", () => {
    const imports = [...files].flatMap(([file, targets]) =>
      roomOf(file) === "limits" || file === "limits.ts" ? [] : [...targets].filter((target) => roomOf(target) === "limits").map((target) => `${file} → ${target}`),
    );
    expect(imports).toEqual([]);
  });

  it("reads every file of src/", () => {
    // A walk that found nothing would find no circle either.
    expect(files.size).toBeGreaterThan(300);
    expect(files.get("index.ts")?.size).toBeGreaterThan(0);
  });
});

describe("reading imports", () => {
  it("finds every form of import and re-export, type imports included", () => {
    const source = [
      'import { a } from "./a.ts";',
      "import type { B } from './b.ts';",
      'import c, { type D, e as f } from "./c.ts";',
      'import * as g from "./g.ts";',
      'import "./side-effect.ts";',
      'export { h } from "./h.ts";',
      'export type { I } from "./i.ts";',
      'export * from "./j.ts";',
      'export * as k from "./k.ts";',
      "const l = await import('./l.ts');",
      'type M = import("./m.ts").M;',
      "import {",
      "  n,",
      "  type O,",
      '} from "./n.ts";',
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(
      ["./a.ts", "./b.ts", "./c.ts", "./g.ts", "./side-effect.ts", "./h.ts", "./i.ts", "./j.ts", "./k.ts", "./l.ts", "./m.ts", "./n.ts"],
    );
  });

  it("ignores what only looks like an import: comments, strings, templates, regular expressions", () => {
    const source = [
      '// import { a } from "./commented.ts";',
      '/* export * from "./block.ts"; */',
      'const text = "import { b } from \'./string.ts\'";',
      "const template = `import ${'x'} from \"./template.ts\" ${`nested ${1}`}`;",
      'const pattern = /import "\\.\\/regex.ts"/g;',
      "const ratio = 4 / 2; const other = 6 / 3;",
      "export const from = 1;",
      "export function named() { return import.meta.url; }",
      'import { real } from "./real.ts";',
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(["./real.ts"]);
  });
});

describe("finding circles", () => {
  const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([node, targets]) => [node, new Set(targets)]));

  it("finds a circle of two and one of three, and not a chain", () => {
    const graph = graphOf({ a: ["b"], b: ["a", "c"], c: ["d"], d: ["e"], e: ["c"], f: ["a"] });
    expect(circles(graph)).toEqual([["a", "b"], ["c", "d", "e"]]);
    expect(circles(graphOf({ a: ["b"], b: ["c"], c: [] }))).toEqual([]);
  });

  it("finds a circle of rooms that no circle of files makes", () => {
    const files = graphOf({ "x/one.ts": ["y/two.ts"], "y/three.ts": ["x/four.ts"], "x/four.ts": [], "y/two.ts": [] });
    expect(circles(files)).toEqual([]);
    expect(circles(roomGraph(files))).toEqual([["x", "y"]]);
    expect(edgesWithin(files, ["x", "y"], roomOf)).toEqual(["x/one.ts → y/two.ts", "y/three.ts → x/four.ts"]);
  });
});
