import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * The import graph of a TypeScript source tree, read without a compiler: a small tokenizer that
 * skips comments, strings, template literals and regular expressions, then the statement shapes
 * that name another module. Type imports count (`import type`, `export type … from`, and the
 * `import("…")` of a type position), because a type import is a dependency of the source as a
 * reader sees it, even when the compiler erases it.
 */

type Token = { kind: "word" | "string" | "punctuation"; text: string };

/** Characters after which a `/` begins a regular expression rather than a division. */
const beforeRegex = new Set(["(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);
const wordsBeforeRegex = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"]);

/** The tokens of `source` that matter for its imports: words, string literals, punctuation. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // One entry per open `{`: true when it opened a template literal's `${`.
  const braces: boolean[] = [];
  let index = 0;
  const readTemplate = (): void => {
    // From just after a backtick or a closing `}` of `${…}`, to the closing backtick or the next `${`.
    while (index < source.length) {
      const char = source[index]!;
      if (char === "\\") index += 2;
      else if (char === "`") {
        index += 1;
        tokens.push({ kind: "string", text: "" });
        return;
      } else if (char === "$" && source[index + 1] === "{") {
        index += 2;
        braces.push(true);
        tokens.push({ kind: "punctuation", text: "(" });
        return;
      } else index += 1;
    }
  };
  while (index < source.length) {
    const char = source[index]!;
    const next = source[index + 1];
    if (/\s/.test(char)) index += 1;
    else if (char === "/" && next === "/") {
      const end = source.indexOf("\n", index);
      index = end === -1 ? source.length : end;
    } else if (char === "/" && next === "*") {
      const end = source.indexOf("*/", index + 2);
      index = end === -1 ? source.length : end + 2;
    } else if (char === '"' || char === "'") {
      let end = index + 1;
      while (end < source.length && source[end] !== char) end += source[end] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", text: source.slice(index + 1, end) });
      index = end + 1;
    } else if (char === "`") {
      index += 1;
      readTemplate();
    } else if (/[A-Za-z_$]/.test(char)) {
      let end = index + 1;
      while (end < source.length && /[\w$]/.test(source[end]!)) end += 1;
      tokens.push({ kind: "word", text: source.slice(index, end) });
      index = end;
    } else if (/[0-9]/.test(char)) {
      let end = index + 1;
      while (end < source.length && /[\w.]/.test(source[end]!)) end += 1;
      tokens.push({ kind: "word", text: source.slice(index, end) });
      index = end;
    } else if (char === "/" && startsRegex(tokens.at(-1))) {
      index = regexEnd(source, index);
      tokens.push({ kind: "string", text: "" });
    } else if (char === "{") {
      braces.push(false);
      tokens.push({ kind: "punctuation", text: char });
      index += 1;
    } else if (char === "}") {
      index += 1;
      if (braces.pop() === true) {
        tokens.push({ kind: "punctuation", text: ")" });
        readTemplate();
      } else tokens.push({ kind: "punctuation", text: char });
    } else {
      tokens.push({ kind: "punctuation", text: char });
      index += 1;
    }
  }
  return tokens;
}

function startsRegex(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.kind === "punctuation") return beforeRegex.has(previous.text);
  return previous.kind === "word" && wordsBeforeRegex.has(previous.text);
}

function regexEnd(source: string, start: number): number {
  let index = start + 1;
  let inClass = false;
  while (index < source.length) {
    const char = source[index]!;
    if (char === "\\") index += 2;
    else if (char === "\n") return index; // not a regular expression after all: a division
    else {
      if (char === "[") inClass = true;
      else if (char === "]") inClass = false;
      else if (char === "/" && !inClass) break;
      index += 1;
    }
  }
  index += 1;
  while (index < source.length && /[a-z]/.test(source[index]!)) index += 1;
  return index;
}

/** The words and punctuation allowed between `import`/`export` and `from`. */
const clauseToken = (token: Token): boolean =>
  token.kind === "word" || (token.kind === "punctuation" && ["{", "}", ",", "*"].includes(token.text));

/** The module specifiers `source` names: static and dynamic imports, re-exports, `import("…")` types. */
export function importSpecifiers(source: string): string[] {
  const tokens = tokenize(source);
  const specifiers: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.kind !== "word" || (token.text !== "import" && token.text !== "export")) continue;
    if (tokens[index - 1]?.kind === "punctuation" && tokens[index - 1]!.text === ".") continue; // a property
    const first = tokens[index + 1];
    if (token.text === "import" && first?.kind === "string") {
      specifiers.push(first.text);
      continue;
    }
    if (token.text === "import" && first?.text === "(" && tokens[index + 2]?.kind === "string") {
      specifiers.push(tokens[index + 2]!.text);
      continue;
    }
    let cursor = index + 1;
    while (cursor < tokens.length && clauseToken(tokens[cursor]!) && tokens[cursor]!.text !== "from") cursor += 1;
    const from = tokens[cursor];
    const specifier = tokens[cursor + 1];
    if (from?.kind === "word" && from.text === "from" && specifier?.kind === "string") specifiers.push(specifier.text);
  }
  return specifiers;
}

/** Every `.ts` file under `directory`, as paths relative to it with `/` separators. */
export function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.push(relative(directory, path).split(sep).join("/"));
    }
  };
  walk(directory);
  return files.sort();
}

/** The graph of relative imports between the files under `directory`: file → files it names. */
export function importGraph(directory: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(directory)) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(join(directory, file), "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const target = relative(directory, resolve(directory, dirname(file), specifier)).split(sep).join("/");
      if (target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** A file's room: its top-level folder, or the file itself when it sits at the top. */
export function roomOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}

/** The graph between rooms that `files` implies (an edge for any import across two rooms). */
export function roomGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = roomOf(file);
    const edges = rooms.get(from) ?? new Set<string>();
    rooms.set(from, edges);
    for (const target of targets) if (roomOf(target) !== from) edges.add(roomOf(target));
  }
  return rooms;
}

/**
 * The circles of `graph`: its strongly connected components of more than one node (Tarjan),
 * each sorted, the list sorted by its first node.
 */
export function circles(graph: Map<string, Set<string>>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, order.size);
    lowest.set(node, order.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!order.has(target)) {
        visit(target);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(target)!));
      } else if (onStack.has(target)) lowest.set(node, Math.min(lowest.get(node)!, order.get(target)!));
    }
    if (lowest.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The file imports that hold one circle together, "from → to" each: what to cut. `nodeOf` maps a
 * file to the circle's kind of node (`roomOf` for a circle of rooms, the file itself otherwise).
 */
export function edgesWithin(
  files: Map<string, Set<string>>,
  circle: readonly string[],
  nodeOf: (file: string) => string = (file) => file,
): string[] {
  const members = new Set(circle);
  const edges: string[] = [];
  for (const [file, targets] of files) {
    for (const target of targets) {
      const from = nodeOf(file);
      const to = nodeOf(target);
      if (from !== to && members.has(from) && members.has(to)) edges.push(`${file} → ${target}`);
    }
  }
  return edges.sort();
}
