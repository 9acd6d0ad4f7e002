/**
 * `npm run bench -- --tiered`: Tributary against both baselines (issue 19's fair ceiling) —
 * the one-row-per-request baseline, and the same Worker's tiered mode (topics named
 * `tiered-…`, bench/baseline/worker.ts), which seals every 8 MiB of rows into one R2 object
 * by alarm and deletes the rows, as any tiered log must. Both servers as `npm run bench`
 * starts them; each row runs twice in this one process: Tributary against the plain baseline,
 * then Tributary against the tiered one, each pair interleaved as the table's rows are
 * (execute.ts), medians of the runs. Writes its own section of RESULTS.md.
 */
import { join } from "node:path";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import type { Endpoint } from "./client.ts";
import { createExecutor, type Settings } from "./execute.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { scenarioTable, type RowResult, type Scenario } from "./scenarios.ts";
import { startServers } from "./servers.ts";
import { transports, type ServerName, type TransportName } from "./transports.ts";

export const tieredHeading = "## The fair ceiling: the tiered baseline";

/** The rows and issue 19's targets against the tiered baseline. */
const rows: { id: string; target: number }[] = [
  { id: "binary.produce.1-in-flight", target: 0.9 },
  { id: "binary.produce.4-in-flight", target: 0.9 },
  { id: "binary.consume", target: 0.9 },
  { id: "json.produce.1-in-flight", target: 0.75 },
];

interface Pair {
  scenario: Scenario;
  target: number;
  plain: RowResult;
  tiered: RowResult;
}

const rate = (result: RowResult, server: "tributary" | "baseline") => result[server]?.recordsPerSecond;
const integer = (value: number | undefined) => (value === undefined ? "—" : Math.round(value).toLocaleString("en-US"));
const ratio = (result: RowResult) => {
  const ours = rate(result, "tributary");
  const theirs = rate(result, "baseline");
  return ours === undefined || theirs === undefined ? undefined : ours / theirs;
};
/**
 * The baseline's runtime CPU per 1,000 records over Tributary's: the throughput ratio a
 * CPU-bound pair would show, steadier than records/s on a loaded machine. Over user time
 * alone (`runtimeUserMs`) it leaves out the kernel's part, which swings between runs of the
 * same code (bench/cpu.ts).
 */
const cpuRatio = (result: RowResult, figure: "runtimeMs" | "runtimeUserMs") => {
  const ours = result.tributary?.cpu?.[figure];
  const theirs = result.baseline?.cpu?.[figure];
  return ours === undefined || theirs === undefined || ours === 0 ? undefined : theirs / ours;
};
const cpuText = (result: RowResult, server: "tributary" | "baseline") => {
  const cpu = result[server]?.cpu;
  return cpu ? `${cpu.runtimeMs.toFixed(1)}, user ${cpu.runtimeUserMs.toFixed(1)}` : "—";
};

function markdown(pairs: Pair[], settings: Settings, uptime: string): string {
  const environment = describeEnvironment();
  const lines = [
    tieredHeading,
    "",
    `${environment.date}, commit ${environment.commit}; ${settings.runs} runs of ${settings.seconds} s per row and server, interleaved, medians; load before: ${uptime}.`,
    "Records/s; runtime CPU in ms per 1,000 records in brackets (all, then its user time). \"× tiered\" is the issue 19 figure (target beside it); " +
      "\"CPU ×\" is the tiered baseline's runtime CPU per record over Tributary's, what the ratio would be were both bound by the runtime's CPU (steadier on a loaded machine); " +
      "\"user CPU ×\" the same over user time alone (the runtime's system time, its writes and page faults, swings between runs of the same code: bench/cpu.ts).",
    "",
    "| row | Tributary | baseline (one row a request) | × baseline | Tributary | tiered baseline | × tiered | CPU × | user CPU × | target |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { scenario, target, plain, tiered } of pairs) {
    const share = ratio(tiered);
    const met = share === undefined ? "" : share >= target ? " ✓" : " ✗";
    lines.push(
      `| ${scenario.transport}: ${scenario.label} | ${integer(rate(plain, "tributary"))} (${cpuText(plain, "tributary")}) | ${integer(rate(plain, "baseline"))} (${cpuText(plain, "baseline")}) | ${ratio(plain)?.toFixed(2) ?? "—"}× | ${integer(rate(tiered, "tributary"))} (${cpuText(tiered, "tributary")}) | ${integer(rate(tiered, "baseline"))} (${cpuText(tiered, "baseline")}) | ${share?.toFixed(2) ?? "—"}× | ${cpuRatio(tiered, "runtimeMs")?.toFixed(2) ?? "—"}× | ${cpuRatio(tiered, "runtimeUserMs")?.toFixed(2) ?? "—"}× | ≥ ${target}×${met} |`,
    );
  }
  return lines.join("\n");
}

export async function tieredBench(options: { settings: Settings; write: boolean; wranglerDefaults: boolean; uptime: string; log: (line: string) => void }): Promise<void> {
  const { settings, write, log } = options;
  const table = scenarioTable();
  const abort = new AbortController();
  log("starting Tributary and the baseline under wrangler dev");
  const servers = await startServers(options.wranglerDefaults);
  const pairs: Pair[] = [];
  try {
    const endpoints = (transport: TransportName): Record<ServerName, Endpoint> => ({
      tributary: { server: "tributary", url: servers.tributary.url, transport: transports[transport], signal: abort.signal, processGroupId: servers.tributary.processGroupId },
      baseline: { server: "baseline", url: servers.baseline.url, transport: transports[transport], signal: abort.signal, processGroupId: servers.baseline.processGroupId },
    });
    const executor = createExecutor(settings, endpoints, log);
    await executor.warmUp(settings.serverWarmupSeconds);
    const results: RowResult[] = [];
    const lookup = (id: string) => results.find((result) => result.scenario.id === id);
    for (const { id, target } of rows) {
      const scenario = table.find((row) => row.id === id)!;
      const plain = await executor.runRow(scenario, lookup);
      const tiered = await executor.runRow({ ...scenario, id: `${id} (tiered)`, topic: `tiered-${scenario.topic}` }, lookup);
      results.push(plain, tiered);
      log(`${id}: × baseline ${ratio(plain)?.toFixed(2)}, × tiered baseline ${ratio(tiered)?.toFixed(2)}`);
      pairs.push({ scenario, target, plain, tiered });
    }
  } finally {
    await Promise.all([servers.tributary.stop(), servers.baseline.stop()]);
  }
  const section = markdown(pairs, settings, options.uptime);
  console.log(`\n${section}\n`);
  if (write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, tieredHeading, section);
    log(`wrote the tiered baseline's section of ${path}`);
  }
}
