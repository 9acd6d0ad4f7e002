/**
 * What a run reports: the table printed at the end, and bench/RESULTS.md, rewritten each
 * run with the machine, the versions, the settings, the medians and their ratios to the
 * baseline, and issue 7's target beside each figure.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, platform, release, totalmem } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { costTable } from "./cost.ts";
import type { Figure, ResultLookup, RowResult } from "./scenarios.ts";

export interface Environment {
  date: string;
  machine: string;
  versions: string;
  commit: string;
}

export interface ReportSettings {
  mode: "full" | "quick";
  lines: string[];
  durationSeconds: number;
}

/** The version of an installed package, resolved as `from` would resolve it (wrangler brings its own workerd). */
function packageVersion(name: string, from = repositoryRoot): string {
  try {
    const manifestPath = createRequire(join(from, "package.json")).resolve(`${name}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { version?: string };
    return manifest.version ?? "unknown";
  } catch {
    return "not installed";
  }
}

function quietly(file: string, args: string[]): string | undefined {
  try {
    return execFileSync(file, args, { cwd: repositoryRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

export function describeEnvironment(): Environment {
  const processors = cpus();
  const memoryGiB = totalmem() / 1024 ** 3;
  const commit = quietly("git", ["rev-parse", "--short", "HEAD"]) ?? "unknown";
  const dirty = quietly("git", ["status", "--porcelain", "--", "src", "wrangler.toml"]);
  return {
    date: new Date().toISOString(),
    machine: `${processors[0]?.model ?? "unknown CPU"}, ${processors.length} cores, ${memoryGiB.toFixed(1)} GiB memory, ${platform()} ${release()}`,
    versions: `node ${process.version}, wrangler ${packageVersion("wrangler")}, workerd ${packageVersion("workerd", join(repositoryRoot, "node_modules", "wrangler"))} (the one wrangler runs)`,
    commit: `${commit}${dirty ? " with uncommitted changes in src/" : ""}`,
  };
}

const integer = (value: number) => Math.round(value).toLocaleString("en-US");
const percent = (share: number) => `${Math.round(share * 100)}%`;

/** How much other work shared the machine: the busiest run's share, over every row. */
function otherLoadText(results: readonly RowResult[]): string {
  const loads = results.flatMap((row) => [row.tributary?.otherLoadMax, row.baseline?.otherLoadMax].flatMap((load) => (load === undefined ? [] : [load])));
  if (loads.length === 0) return "not measured (needs Linux's /proc)";
  const busiest = Math.max(...loads);
  const verdict = busiest < 0.05 ? "the machine was otherwise idle" : "figures are lower and noisier than on an idle machine";
  return `up to ${percent(busiest)} of the machine's CPU during a run (${verdict})`;
}

function figureText(figure: Figure | undefined): string {
  if (!figure) return "—";
  if (figure.recordsPerSecond !== undefined) return `${integer(figure.recordsPerSecond)} rec/s, ${figure.megabytesPerSecond!.toFixed(1)} MB/s`;
  return `p50 ${figure.p50Ms!.toFixed(2)} ms, p99 ${figure.p99Ms!.toFixed(2)} ms`;
}

function ratioText(row: RowResult): string {
  const ours = row.tributary;
  const theirs = row.baseline;
  if (!ours || !theirs) return "—";
  if (ours.recordsPerSecond !== undefined && theirs.recordsPerSecond !== undefined) {
    return `${(ours.recordsPerSecond / theirs.recordsPerSecond).toFixed(2)}×`;
  }
  return `p50 ${(ours.p50Ms! / theirs.p50Ms!).toFixed(2)}×, p99 ${(ours.p99Ms! / theirs.p99Ms!).toFixed(2)}×`;
}

function targetText(row: RowResult, lookup: ResultLookup): { target: string; met: string } {
  if (row.scenario.targets.length === 0) return { target: "—", met: "" };
  const verdicts = row.scenario.targets.map((rule) => rule.met(row, lookup));
  const met = verdicts.map((verdict) => (verdict === undefined ? "n/a" : verdict ? "met" : "NOT met")).join(", ");
  return { target: row.scenario.targets.map((rule) => rule.text).join("; "), met };
}

interface TableRow {
  scenario: string;
  tributary: string;
  baseline: string;
  ratio: string;
  target: string;
  met: string;
}

function tableRows(results: readonly RowResult[], lookup: ResultLookup): TableRow[] {
  return results.map((row) => {
    const scenario = `${row.scenario.transport}: ${row.scenario.label}`;
    const { target, met } = targetText(row, lookup);
    if (row.skipped !== undefined) return { scenario, tributary: `skipped (${row.skipped})`, baseline: "", ratio: "", target, met: "" };
    return { scenario, tributary: figureText(row.tributary), baseline: figureText(row.baseline), ratio: ratioText(row), target, met };
  });
}

const headings: TableRow = { scenario: "scenario", tributary: "Tributary", baseline: "baseline", ratio: "× baseline", target: "target (issue 7)", met: "" };
const columns = Object.keys(headings) as (keyof TableRow)[];

/** The table as aligned plain text, for the terminal. */
export function printedTable(results: readonly RowResult[], lookup: ResultLookup): string {
  const rows = [headings, ...tableRows(results, lookup)];
  const widths = columns.map((column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: TableRow) => columns.map((column, index) => row[column].padEnd(widths[index]!)).join("  ").trimEnd();
  return [line(rows[0]!), widths.map((width) => "-".repeat(width)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

function markdownTable(results: readonly RowResult[], lookup: ResultLookup): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = tableRows(results, lookup);
  return [
    `| ${columns.map((column) => headings[column] || "verdict").join(" | ")} |`,
    `|${columns.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${columns.map((column) => cell(row[column])).join(" | ")} |`),
  ].join("\n");
}

function cpuText(figure: Figure | undefined): string {
  const cpu = figure?.cpu;
  if (!cpu) return "—";
  return `${cpu.runtimeMs.toFixed(2)} (dev server ${cpu.devServerMs.toFixed(2)}, client ${cpu.clientMs.toFixed(2)})`;
}

/** CPU per unit of work beside each throughput or latency figure: where the time goes. */
function cpuTable(results: readonly RowResult[]): string {
  const rows = results.filter((row) => row.skipped === undefined && row.tributary?.cpu);
  if (rows.length === 0) return "Not measured (needs Linux's /proc).";
  return [
    "| scenario | per | Tributary runtime ms | baseline runtime ms | × baseline |",
    "|---|---|---|---|---|",
    ...rows.map((row) => {
      const ours = row.tributary!.cpu!;
      const theirs = row.scenario.baseline === "measure" ? row.baseline?.cpu : undefined;
      const ratio = theirs ? `${(ours.runtimeMs / theirs.runtimeMs).toFixed(2)}×` : "—";
      return `| ${row.scenario.transport}: ${row.scenario.label} | ${ours.per} | ${cpuText(row.tributary)} | ${theirs ? cpuText(row.baseline) : "—"} | ${ratio} |`;
    }),
  ].join("\n");
}

function runsSection(results: readonly RowResult[]): string {
  const lines: string[] = [];
  for (const row of results) {
    for (const [server, figure] of [["Tributary", row.tributary], ["baseline", row.baseline]] as const) {
      if (!figure || (server === "baseline" && row.scenario.baseline !== "measure")) continue;
      const unit = figure.recordsPerSecond !== undefined ? "rec/s" : "ms p99";
      const values = figure.runs.map((value) => (unit === "rec/s" ? integer(value) : value.toFixed(2))).join(" · ");
      const other = figure.otherLoadMax === undefined ? "" : `; other processes ≤ ${percent(figure.otherLoadMax)} of the CPU`;
      lines.push(`- ${row.scenario.id}, ${server}: ${values} ${unit}${other}`);
    }
  }
  return lines.join("\n");
}

export function resultsMarkdown(environment: Environment, settings: ReportSettings, results: readonly RowResult[], lookup: ResultLookup): string {
  return `# Benchmark results

Written by \`npm run bench${settings.mode === "quick" ? " -- --quick" : ""}\` (bench/run.ts); every run rewrites this file.
How to read it, what each scenario and the baseline are: [README.md](README.md).

- Date: ${environment.date}
- Machine: ${environment.machine}
- Versions: ${environment.versions}
- Tributary commit: ${environment.commit}
- Mode: ${settings.mode}; the whole run took ${Math.round(settings.durationSeconds)} s
- Other processes: ${otherLoadText(results)}
${settings.lines.map((line) => `- ${line}`).join("\n")}

## Medians

Throughput is records/s and MB/s of key + value bytes (216 B a record, 10^6 B a MB); latency
is milliseconds. "× baseline" divides Tributary's figure by the baseline's: above 1 is
faster for throughput, below 1 is faster for latency.

${markdownTable(results, lookup)}

## Where the CPU goes

CPU time per unit of work, medians over the runs, read from /proc for each process of a
server: the runtime is the workerd that runs the Worker and its Durable Objects (the
service's own work); the dev server is wrangler's proxy workerd and Node; the client is
this benchmark. With 2 cores shared by all of them, a service that needs less runtime CPU
per record is the one that scales.

${cpuTable(results)}

## What it costs

Cloudflare bills object requests and SQLite rows written, not bytes. Tributary's partition
leaders count both (TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1, docs/api.md's debug statistics: RPC calls and alarms
answered; rows as each SQLite cursor reports them), read before and after a row's runs
(bench/cost.ts). Sealing that a row's produce triggers after its last run is counted in a
later row. The baseline's column follows from its code (one row and one object request per
produce request), not from a count.

${costTable(results)}

## Every run

Records/s of each run (throughput) or its p99 (latency), in the order they ran:

${runsSection(results)}
`;
}

/** The soak run's section (bench/soak.ts), kept when a benchmark rewrites the file: it runs apart, for minutes. */
export const soakHeading = "## Soak run";
/** The startup rows' section (bench/startup.ts), kept when a run does not measure them (`--only`). */
export const startupHeading = "## Startup";
/** The streaming rows' recorded run (issue 14), written by hand from `--only latency,tail-read,fan-out`: kept until a full run measures them in the tables. */
export const streamingHeading = "## Streaming reads";
/** The Kafka gateway's section (bench/gateway.ts, `--gateway`), kept by the other runs. */
export const gatewayHeading = "## Kafka gateway";
/** The catch-up reads' section (bench/sealed-reads.ts, issue 19), measured after the table's rows. */
export const sealedReadsHeading = "## Catch-up reads from R2";
/** Push subscriptions' rows (bench/push.ts), their own section. */
export const pushHeading = "## Push subscriptions";
/** The client against the raw path, and its peers (bench/client-rows.ts, `--client`; issue 19), its own section. */
export const clientHeading = "## Client";
const keptHeadings = [startupHeading, soakHeading, streamingHeading, gatewayHeading, sealedReadsHeading, pushHeading, clientHeading, "## The monthly bill" /* bench/bill.ts */, "## The fair ceiling: the tiered baseline" /* bench/tiered-baseline.ts */, "## Transactions (issue 28)" /* bench/transactions.ts */, "## The monthly bill B with transactions (issue 28)" /* bench/bill.ts */, "## Schema validation on produce (issue 30)" /* bench/schema-validation.ts */];

/** The text of `heading`'s section in `markdown`, exactly (up to the next "## " or the end), or undefined. */
export function sectionOf(markdown: string, heading: string): string | undefined {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) return undefined;
  const next = markdown.indexOf("\n## ", start + heading.length + 2);
  return markdown.slice(start + 1, next < 0 ? undefined : next + 1);
}

/** Writes RESULTS.md, keeping the startup and soak sections of the file it replaces. */
export function writeResults(path: string, markdown: string): void {
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  const kept = keptHeadings.flatMap((heading) => sectionOf(current, heading) ?? []).map((section) => section.trimEnd());
  writeFileSync(path, [markdown.trimEnd(), ...kept].join("\n\n") + "\n", "utf8");
}

/** Puts a section (soak, startup) into RESULTS.md, in place of the previous one, leaving the rest as it is. */
export function writeSection(path: string, heading: string, section: string): void {
  const current = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmark results\n";
  const previous = sectionOf(current, heading);
  // A section with more after it keeps the blank line that ends it, so the next heading stays a heading of its own.
  const replacement = previous?.endsWith("\n\n") ? `${section.trimEnd()}\n\n` : `${section.trimEnd()}\n`;
  const next = previous ? current.replace(previous, replacement) : `${current.trimEnd()}\n\n${section.trimEnd()}\n`;
  writeFileSync(path, next, "utf8");
}
