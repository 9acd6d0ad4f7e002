/**
 * A line diff of two texts, pure (the Schemas page's diff between two versions): Myers'
 * O((N+M)·D) shortest edit script after trimming the common head and tail, so the usual case
 * (a field added to a schema) costs a few steps. Bounded: beyond `lineDiffEditsMax` edits the
 * texts are too different to align usefully, and the answer is every old line removed and
 * every new one added, marked `aligned: false` so the page can say so.
 */

/** Edits searched before giving up on aligning: time O((N+M)·D) and memory O(D²) stay small in a browser. */
export const lineDiffEditsMax = 1_000;

export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
  /** 1-based line in the old text (same, removed). */
  oldLine?: number;
  /** 1-based line in the new text (same, added). */
  newLine?: number;
}

export interface LineDiff {
  lines: DiffLine[];
  /** False when the edits exceeded the bound and the texts are shown as replaced whole. */
  aligned: boolean;
  added: number;
  removed: number;
}

export function splitLines(text: string): string[] {
  return text === "" ? [] : text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
}

export function diffLines(before: string, after: string, editsMax: number = lineDiffEditsMax): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const script = shortestEditScript(middleA, middleB, editsMax);
  const aligned = script !== undefined;
  const kinds = script ?? [...middleA.map(() => "removed" as const), ...middleB.map(() => "added" as const)];
  const lines: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  const same = (text: string) => lines.push({ kind: "same", text, oldLine: ++oldLine, newLine: ++newLine });
  a.slice(0, head).forEach(same);
  for (const kind of kinds) {
    if (kind === "same") same(a[oldLine]!);
    else if (kind === "removed") lines.push({ kind, text: a[oldLine]!, oldLine: ++oldLine });
    else lines.push({ kind, text: b[newLine]!, newLine: ++newLine });
  }
  a.slice(a.length - tail).forEach(same);
  const count = (kind: DiffLine["kind"]) => lines.reduce((sum, line) => sum + (line.kind === kind ? 1 : 0), 0);
  return { lines, aligned, added: count("added"), removed: count("removed") };
}

/**
 * Myers' greedy forward search; `frontiers[d]` keeps the furthest x reached on each diagonal k
 * (k = x − y, −d−1…d+1) before step d, so the path is walked back from the end. Undefined when
 * more than `editsMax` edits are needed.
 */
function shortestEditScript(a: readonly string[], b: readonly string[], editsMax: number): ("same" | "removed" | "added")[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, editsMax);
  const offset = limit + 1;
  const furthest = new Int32Array(2 * limit + 3);
  const frontiers: Int32Array[] = [];
  let edits = -1;
  for (let d = 0; d <= limit && edits < 0; d++) {
    frontiers.push(furthest.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && furthest[offset + k - 1]! < furthest[offset + k + 1]!);
      let x = down ? furthest[offset + k + 1]! : furthest[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) { x++; y++; }
      furthest[offset + k] = x;
      if (x >= n && y >= m) { edits = d; break; }
    }
  }
  if (edits < 0) return undefined;
  const script: ("same" | "removed" | "added")[] = [];
  let x = n;
  let y = m;
  for (let d = edits; d > 0; d--) {
    const frontier = frontiers[d]!;
    const at = (k: number) => frontier[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) { script.push("same"); x--; y--; }
    if (down) { script.push("added"); y--; } else { script.push("removed"); x--; }
    x = previousX;
    y = previousY;
  }
  while (x > 0 && y > 0) { script.push("same"); x--; y--; }
  return script.reverse();
}
