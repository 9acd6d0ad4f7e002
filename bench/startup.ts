/**
 * Startup rows (issue 13): how long until Tributary answers, started the two ways that do not
 * go through wrangler — `startTributary()` from `tributary/testing` (in this process, as a
 * user's test suite does) and `tributary serve --data DIR` (a new process each time, as a
 * service manager does). Measured, never asserted.
 *
 *   startTributary(): call ──► resolved ──► GET /v1/health 200   (then dispose)
 *   tributary serve:  spawn ──► GET /v1/health 200 (polled every 50 ms)   (then SIGTERM)
 *
 * Both run the Worker that `npm run build` bundled into dist/worker/, built once at the start.
 * The first startTributary() of a process also loads Miniflare: it is reported apart.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServe } from "../test/e2e/support/selfhost-serve.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { startupHeading } from "./report.ts";

export const startupRows = [
  { id: "startup.start-tributary", label: "`startTributary()` until GET /v1/health answers 200" },
  { id: "startup.serve", label: "`tributary serve --data DIR`, from spawning the process until GET /v1/health answers 200" },
] as const;

export type StartupRowId = (typeof startupRows)[number]["id"];

export interface StartupFigure {
  id: StartupRowId;
  label: string;
  /** Each measured start, in order, ms. */
  runsMs: number[];
  medianMs: number;
  /** startTributary() only: the first start of the process, which loads Miniflare too. */
  firstMs?: number;
}

/** A stop signal's bound (docs/self-hosting.md). */
const stopTimeoutMs = 15_000;

export async function measureStartup(ids: readonly StartupRowId[], runs: number, progress: (line: string) => void): Promise<StartupFigure[]> {
  progress("startup rows: npm run build (the Worker in dist/worker/)");
  execFileSync("npm", ["run", "build"], { cwd: repositoryRoot, stdio: "pipe" });
  const figures: StartupFigure[] = [];
  for (const row of startupRows) {
    if (!ids.includes(row.id)) continue;
    const figure = row.id === "startup.serve" ? await measureServe(runs) : await measureStartTributary(runs);
    progress(`${row.id}: median ${figure.medianMs.toFixed(0)} ms`);
    figures.push({ ...figure, id: row.id, label: row.label });
  }
  return figures;
}

async function measureStartTributary(runs: number): Promise<Omit<StartupFigure, "id" | "label">> {
  const importedAt = performance.now();
  const { startTributary } = await import("../src/testing/index.ts");
  const importMs = performance.now() - importedAt;
  const startOnce = async () => {
    const before = performance.now();
    const tributary = await startTributary();
    try {
      const health = await tributary.fetch("/v1/health");
      await health.arrayBuffer();
      if (health.status !== 200) throw new Error(`GET /v1/health answered ${health.status}`);
      return performance.now() - before;
    } finally {
      await tributary.dispose();
    }
  };
  const firstMs = importMs + (await startOnce());
  const runsMs: number[] = [];
  for (let run = 0; run < runs; run++) runsMs.push(await startOnce());
  return { runsMs, medianMs: median(runsMs), firstMs };
}

async function measureServe(runs: number): Promise<Omit<StartupFigure, "id" | "label">> {
  const runsMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    const directory = mkdtempSync(join(tmpdir(), "tributary-bench-serve-"));
    try {
      const serve = await startServe(directory);
      runsMs.push(serve.startupMs);
      serve.signal("SIGTERM");
      const left = await serve.waitUntilGone(stopTimeoutMs);
      if (left.length > 0) throw new Error(`tributary serve left processes after SIGTERM:\n${left.join("\n")}`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return { runsMs, medianMs: median(runsMs) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const milliseconds = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;

export function startupMarkdown(figures: readonly StartupFigure[], date: string, commit: string): string {
  return `${startupHeading}

Written by \`npm run bench\` (bench/startup.ts) on ${date}, Tributary commit ${commit}; \`--only startup\` runs these rows
alone. Time until Tributary answers, without wrangler: the Worker bundled by \`npm run build\` on workerd through Miniflare,
state in a fresh directory each time. \`startTributary()\`: the starts after the first of the process (which also loads
Miniflare, shown apart); \`serve\`: every start is a new process.

| row | median | every run | first start of the process (loads Miniflare) |
|---|---|---|---|
${figures
  .map((figure) => `| ${figure.label} | ${milliseconds(figure.medianMs)} | ${figure.runsMs.map(milliseconds).join(" · ")} | ${figure.firstMs === undefined ? "—" : milliseconds(figure.firstMs)} |`)
  .join("\n")}
`;
}
