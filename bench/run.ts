/**
 * `npm run bench`: Tributary against a minimal one-row-per-request Durable Object, both under
 * `wrangler dev` on loopback, in one bounded run (bench/README.md).
 *
 *   start both servers (free ports, fresh --persist-to dirs) ──► every row of scenarios.ts:
 *   warm-up, then runs alternating Tributary / baseline ──► print the table, rewrite
 *   bench/RESULTS.md ──► stop both process groups (also on an error, Ctrl-C or the time bound)
 *
 *   npm run bench                     3 runs of 4 s per row and server (about 6 minutes)
 *   npm run bench -- --quick          3 runs of 0.5 s (about 1 minute)
 *   npm run bench -- --only json.produce --runs 1 --seconds 2 --no-write
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import type { Endpoint } from "./client.ts";
import { createExecutor, type Settings } from "./execute.ts";
import { profileRow } from "./profile.ts";
import { costTable } from "./cost.ts";
import { gatewayBench } from "./gateway.ts";
import { durableStreamsBench } from "./durable-streams.ts";
import { describeEnvironment, printedTable, resultsMarkdown, soakHeading, startupHeading, writeResults, writeSection } from "./report.ts";
import { runSoak, soakMarkdown } from "./soak.ts";
import { scenarioTable, type RowResult } from "./scenarios.ts";
import { startServer, startServers } from "./servers.ts";
import { measureStartup, startupMarkdown, startupRows, type StartupRowId } from "./startup.ts";
import { pushRowsMatching, runPushRows } from "./push.ts";
import { transports, type ServerName, type TransportName } from "./transports.ts";
import { shareRowId, shareSection } from "./share.ts"; // share groups (issue 15): its own server and section
import { runSealedReads, selectedSealedReadRows } from "./sealed-reads.ts"; // issue 19: catch-up reads from R2
import { clientBench } from "./client-rows.ts"; // issue 19: the client against the raw path (--client [--peers] [--profile-client])
import { billBench, billZstdBench } from "./bill.ts"; // issue 19: the monthly bill (--bill); issue 27: --bill-zstd
import { tieredBench } from "./tiered-baseline.ts"; // issue 19: the tiered baseline (--tiered)
import { execFileSync } from "node:child_process";

const usage = `usage: npm run bench -- [--quick] [--runs N] [--seconds S] [--warmup S] [--only TEXT] [--no-write] [--wrangler-defaults]
       npm run bench -- --profile ROW [--seconds S]
       npm run bench -- --soak MINUTES [--no-write]
       npm run bench -- --gateway [--seconds S] [--gateway-soak MINUTES] [--no-write]
       npm run bench -- --durable-streams [--quick] [--runs N] [--seconds S] [--no-write]
       npm run bench -- --client [--runs N] [--peers] [--profile-client] [--no-write]
       npm run bench -- --bill [--seconds S] [--no-write]   (the monthly bill, bench/bill.ts; runs of 30 s by default)
       npm run bench -- --tiered [--quick] [--runs N] [--seconds S] [--no-write]   (against both baselines, bench/tiered-baseline.ts)
       npm run bench -- --compression | --compression-server [--runs N] [--no-write]   (issue 27: codecs; compressed topics, bench/compression-server.ts)
       npm run bench -- --bill-zstd [--seconds S] [--no-write]   (issue 27: bill B with the producer on zstd, bench/bill.ts)
       npm run bench -- --transactions [--runs N] [--no-write]   (issue 28: transactional vs idempotent produce, read_committed consume, commit latency, bench/transactions.ts)
       npm run bench -- --bill-transactions [--seconds S] [--no-write]   (issue 28: bill B with a producer committing once a second, bench/bill.ts)
       npm run bench -- --schema-validation [--runs N] [--no-write]   (issue 30: produce with schema validation off, by id and full; lookup by id p50/p99, bench/schema-validation.ts)
       npm run bench -- --group-failover [--runs N] [--no-write]   (issue 29: a Java group member killed, KIP-848 against classic, bench/group-failover.ts)
  --quick       3 runs of 0.5 s per row and server instead of 3 of 4 s (about 1 minute instead of 6)
  --runs N      measured runs per row (the figure is their median)
  --seconds S   length of one run
  --warmup S    unmeasured run per server before each row
  --only TEXT   only rows whose id contains TEXT, or one of several comma-separated
                (e.g. json.produce, consume, latency, startup, or tail-read,fan-out)
  --no-write    print the table but leave bench/RESULTS.md as it is
  --wrangler-defaults
                keep wrangler dev's local trace collector and request log on, as \`npm start\` has them
                (by default both are off for both servers: dev-only work on every request)
  --profile ROW run one row (e.g. json.produce.1-in-flight) on Tributary alone under V8's sampling
                profiler and print where its isolate spends CPU (bench/profile.ts); writes nothing
  --soak MINUTES
                produce and consume on Tributary alone for MINUTES (1 to 60), sampling memory, and say
                whether it stays flat (bench/soak.ts); writes its section of bench/RESULTS.md
  --gateway     the Kafka gateway against Tributary's own client (bench/gateway.ts); with
                --gateway-soak MINUTES, its memory over a sustained run; writes its section
  --client      Tributary's client against the raw binary path, 200,000 records (bench/client-rows.ts); with
                --peers, Redis Streams and NATS JetStream too; --profile-client prints where the client's CPU goes`;

/**
 * Run lengths. 26 row-server pairs (8 rows a transport, 5 of them measured on the baseline
 * too) × (warm-up + 3 runs) + about 15 s to start and warm up the servers: full ≈ 5.8 minutes,
 * quick ≈ 1.
 */
const fullRunSeconds = 4;
const fullWarmupSeconds = 0.5;
const quickRunSeconds = 0.5;
const quickWarmupSeconds = 0.2;
/** Before the first row, per server: cold isolates, objects and JIT would otherwise land on the first row. */
const fullServerWarmupSeconds = 2;
const quickServerWarmupSeconds = 1;
/** Starting two wrangler dev servers takes a few seconds; a cold bundle on a slow machine longer. */
const startupAllowanceSeconds = 120;
/** Runs overrun their nominal length by the last request's answer; this leaves room for that. */
const runOverrunFactor = 1.5;

interface Options {
  settings: Settings;
  mode: "full" | "quick";
  only?: string;
  write: boolean;
  wranglerDefaults: boolean;
  profile?: string;
  soakMinutes?: number;
  /** --gateway: the Kafka gateway's rows (bench/gateway.ts). */
  gateway?: { seconds: number; soakMinutes: number | undefined };
  durableStreams: boolean;
  /** --client: the client against the raw path (bench/client-rows.ts). */
  client?: { peers: boolean; profile: boolean };
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      seconds: { type: "string" },
      warmup: { type: "string" },
      only: { type: "string" },
      "no-write": { type: "boolean", default: false },
      "wrangler-defaults": { type: "boolean", default: false },
      profile: { type: "string" },
      soak: { type: "string" },
      gateway: { type: "boolean", default: false },
      "gateway-soak": { type: "string" },
      "durable-streams": { type: "boolean", default: false }, // bench/durable-streams.ts
      client: { type: "boolean", default: false }, // bench/client-rows.ts
      peers: { type: "boolean", default: false },
      "profile-client": { type: "boolean", default: false },
      bill: { type: "boolean", default: false }, // bench/bill.ts (issue 19)
      tiered: { type: "boolean", default: false }, // bench/tiered-baseline.ts (issue 19)
      compression: { type: "boolean", default: false }, // bench/compression.ts (issue 27)
      "compression-server": { type: "boolean", default: false }, // bench/compression-server.ts (issue 27)
      "bill-zstd": { type: "boolean", default: false }, // bench/bill.ts (issue 27)
      transactions: { type: "boolean", default: false }, // bench/transactions.ts (issue 28)
      "bill-transactions": { type: "boolean", default: false }, // bench/bill.ts (issue 28)
      "schema-validation": { type: "boolean", default: false }, // bench/schema-validation.ts (issue 30)
      "group-failover": { type: "boolean", default: false }, // bench/group-failover.ts (issue 29)
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const mode = values.quick ? "quick" : "full";
  const number = (text: string | undefined, fallback: number, min: number, max: number, name: string) => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name} must be between ${min} and ${max}\n${usage}`);
    return value;
  };
  const settings: Settings = {
    runs: Math.round(number(values.runs, 3, 1, 9, "runs")),
    seconds: number(values.seconds, mode === "quick" ? quickRunSeconds : fullRunSeconds, 0.2, 60, "seconds"),
    warmupSeconds: number(values.warmup, mode === "quick" ? quickWarmupSeconds : fullWarmupSeconds, 0, 10, "warmup"),
    serverWarmupSeconds: mode === "quick" ? quickServerWarmupSeconds : fullServerWarmupSeconds,
  };
  return {
    settings,
    mode,
    only: values.only,
    write: !values["no-write"],
    wranglerDefaults: values["wrangler-defaults"],
    profile: values.profile,
    ...(values.soak === undefined ? {} : { soakMinutes: number(values.soak, 10, 0.05, 60, "soak") }),
    ...(values.gateway
      ? { gateway: { seconds: number(values.seconds, fullRunSeconds, 0.2, 60, "seconds"), soakMinutes: values["gateway-soak"] === undefined ? undefined : number(values["gateway-soak"], 10, 0.05, 60, "gateway-soak") } }
      : {}),
    durableStreams: values["durable-streams"],
    ...(values.client ? { client: { peers: values.peers, profile: values["profile-client"] } } : {}),
  };
}

/** --profile: one row, Tributary only, under the sampling profiler; bounded like a row of the table. */
async function profile(id: string, settings: Settings, wranglerDefaults: boolean): Promise<void> {
  const scenario = scenarioTable().find((row) => row.id === id);
  if (!scenario) throw new Error(`no row ${id}; rows: ${scenarioTable().map((row) => row.id).join(", ")}`);
  const boundSeconds = startupAllowanceSeconds + (settings.warmupSeconds + settings.seconds) * runOverrunFactor;
  const abort = new AbortController();
  const watchdog = setTimeout(() => abort.abort(new Error(`the profile exceeded its bound of ${Math.round(boundSeconds)} s`)), boundSeconds * 1000);
  const startedAt = performance.now();
  const progress = (line: string) => console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}`);
  try {
    console.log(await profileRow(scenario, settings, wranglerDefaults, abort.signal, progress));
  } finally {
    clearTimeout(watchdog);
  }
}

/** --soak: Tributary alone, produce and consume for the given minutes, memory sampled (bench/soak.ts). */
async function soak(minutes: number, write: boolean, wranglerDefaults: boolean): Promise<void> {
  const boundSeconds = startupAllowanceSeconds + minutes * 60 * runOverrunFactor;
  const abort = new AbortController();
  const watchdog = setTimeout(() => abort.abort(new Error(`the soak exceeded its bound of ${Math.round(boundSeconds)} s`)), boundSeconds * 1000);
  const startedAt = performance.now();
  const progress = (line: string) => console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}`);
  progress(`starting Tributary under wrangler dev for a ${minutes}-minute soak`);
  const server = await startServer("tributary", wranglerDefaults);
  try {
    const endpoint: Endpoint = { server: "tributary", url: server.url, transport: transports.binary, signal: abort.signal, processGroupId: server.processGroupId };
    const result = await runSoak(endpoint, minutes, soakSampleSeconds(minutes), progress, server.inspectorUrl);
    const environment = describeEnvironment();
    const section = soakMarkdown(result, environment.date, environment.commit);
    console.log(`\n${section}`);
    if (write) {
      const path = join(repositoryRoot, "bench", "RESULTS.md");
      writeSection(path, soakHeading, section);
      progress(`wrote the soak section of ${path}`);
    }
  } finally {
    clearTimeout(watchdog);
    await server.stop();
  }
}

/** About 60 samples a run, at least one a second. */
function soakSampleSeconds(minutes: number): number {
  return Math.max(1, Math.round(minutes));
}

/**
 * The startup rows (bench/startup.ts), after the servers have stopped so that nothing else
 * runs; their own section of RESULTS.md.
 */
async function startup(ids: StartupRowId[], runs: number, write: boolean, progress: (line: string) => void): Promise<void> {
  if (ids.length === 0) return;
  const figures = await measureStartup(ids, runs, progress);
  const environment = describeEnvironment();
  const section = startupMarkdown(figures, environment.date, environment.commit);
  console.log(`\n${section}`);
  if (write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, startupHeading, section);
    progress(`wrote the startup section of ${path}`);
  }
}

async function main(): Promise<void> {
  const { settings, mode, only, write, wranglerDefaults, profile: profiled, soakMinutes, gateway, durableStreams, client } = parseOptions();
  if (client) return clientBench({ ...client, runs: settings.runs, write, wranglerDefaults, progress: (line) => console.error(`[bench] ${line}`) });
  if (process.argv.includes("--bill")) { // issue 19: --bill [--seconds S] [--no-write] (bench/bill.ts)
    const uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
    return billBench({ seconds: process.argv.includes("--seconds") ? settings.seconds : 30, write, uptime, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--bill-zstd")) { // issue 27: --bill-zstd [--seconds S] [--no-write] (bench/bill.ts)
    const uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
    return billZstdBench({ seconds: process.argv.includes("--seconds") ? settings.seconds : 30, write, uptime, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--bill-transactions")) { // issue 28: --bill-transactions [--seconds S] [--no-write] (bench/bill.ts)
    const uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
    const { billTransactionsBench } = await import("./bill.ts");
    return billTransactionsBench({ seconds: process.argv.includes("--seconds") ? settings.seconds : 30, write, uptime, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--tiered")) { // issue 19: --tiered [--quick] [--runs N] [--seconds S] [--no-write] (bench/tiered-baseline.ts)
    const uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
    return tieredBench({ settings, write, wranglerDefaults, uptime, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--compression-server")) { // issue 27: compressed topics on the server [--runs N] [--no-write] (bench/compression-server.ts)
    const { compressionServerBench } = await import("./compression-server.ts");
    return compressionServerBench({ runs: settings.runs, write, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--transactions")) { // issue 28: transactional produce, read_committed consume, commit latency (bench/transactions.ts)
    const { transactionsBench } = await import("./transactions.ts");
    return transactionsBench({ runs: settings.runs, write, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--group-failover")) { // issue 29: a Java group member killed, KIP-848 against classic (bench/group-failover.ts)
    const { groupFailoverBench } = await import("./group-failover.ts");
    return groupFailoverBench({ runs: process.argv.includes("--runs") ? settings.runs : 1, write, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--schema-validation")) { // issue 30: produce with schema validation off, by id and full; lookup by id (bench/schema-validation.ts)
    const { schemaValidationBench } = await import("./schema-validation.ts");
    return schemaValidationBench({ runs: settings.runs, write, log: (line) => console.error(`[bench] ${line}`) });
  }
  if (process.argv.includes("--compression")) return void console.log((await import("./compression.ts")).compressionBench()); // issue 27: codec speeds and ratios (bench/compression.ts)
  if (durableStreams) return durableStreamsBench({ ...settings, write }, (line) => console.error(`[bench] ${line}`));
  if (gateway !== undefined) {
    const startedAt = performance.now();
    const progress = (line: string) => console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}`);
    return gatewayBench({ ...gateway, write, wranglerDefaults, progress });
  }
  if (profiled !== undefined) return profile(profiled, settings, wranglerDefaults);
  if (soakMinutes !== undefined) return soak(soakMinutes, write, wranglerDefaults);
  const rows = scenarioTable().filter((scenario) => only === undefined || only.split(",").some((text) => scenario.id.includes(text)));
  const startupIds = startupRows.map((row) => row.id).filter((id) => only === undefined || only.split(",").some((text) => id.includes(text)));
  const shareWanted = only === undefined || only.split(",").some((text) => shareRowId.includes(text));
  const sealedReadIds = selectedSealedReadRows(only); // issue 19 (bench/sealed-reads.ts)
  const pushIds = pushRowsMatching(only); // push subscriptions (bench/push.ts)
  if (rows.length === 0 && startupIds.length === 0 && !shareWanted && sealedReadIds.length === 0 && pushIds.length === 0) throw new Error(`no row id contains "${only}"`);
  if (rows.length === 0) {
    const startedAt = performance.now();
    const log = (line: string) => console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}`);
    if (shareWanted) await shareSection(settings.runs, write, wranglerDefaults, log);
    await runSealedReads(sealedReadIds, settings.runs, write, wranglerDefaults, log);
    await startup(startupIds, settings.runs, write, log);
    return runPushRows(pushIds, write, log);
  }
  const measuredRows = rows.filter((scenario) => transports[scenario.transport].unavailable() === undefined);
  const boundSeconds =
    startupAllowanceSeconds +
    (2 * settings.serverWarmupSeconds + measuredRows.length * 2 * (settings.warmupSeconds + settings.runs * settings.seconds)) * runOverrunFactor;

  const abort = new AbortController();
  const watchdog = setTimeout(() => abort.abort(new Error(`the benchmark exceeded its bound of ${Math.round(boundSeconds)} s`)), boundSeconds * 1000);
  const startedAt = performance.now();
  const progress = (line: string) => console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${line}`);

  progress(`starting Tributary and the baseline under wrangler dev (bound: ${Math.round(boundSeconds)} s)`);
  const servers = await startServers(wranglerDefaults);
  try {
    progress(`Tributary on ${servers.tributary.url}, baseline on ${servers.baseline.url}`);
    const endpoints = (transport: TransportName): Record<ServerName, Endpoint> => ({
      tributary: { server: "tributary", url: servers.tributary.url, transport: transports[transport], signal: abort.signal, processGroupId: servers.tributary.processGroupId },
      baseline: { server: "baseline", url: servers.baseline.url, transport: transports[transport], signal: abort.signal, processGroupId: servers.baseline.processGroupId },
    });
    const executor = createExecutor(settings, endpoints, progress);
    progress(`warming both servers up (${settings.serverWarmupSeconds} s each)`);
    await executor.warmUp(settings.serverWarmupSeconds);
    const results: RowResult[] = [];
    const lookup = (id: string) => results.find((result) => result.scenario.id === id);
    for (const scenario of rows) {
      if (abort.signal.aborted) throw abort.signal.reason;
      const result = await executor.runRow(scenario, lookup);
      if (result.skipped !== undefined) progress(`${scenario.id}: skipped (${result.skipped})`);
      results.push(result);
    }
    const durationSeconds = (performance.now() - startedAt) / 1000;
    console.log(`\n${printedTable(results, lookup)}\n\nObject requests and SQLite rows written (bench/cost.ts):\n${costTable(results)}\n`);
    if (write) {
      const settingsLines = [
        ...executor.describe(),
        wranglerDefaults
          ? "wrangler dev as `npm start` runs it (--wrangler-defaults): local trace collector and request log on"
          : "wrangler dev with its local trace collector (X_LOCAL_OBSERVABILITY=false) and request log (--log-level warn) off, for both servers",
      ];
      const path = join(repositoryRoot, "bench", "RESULTS.md");
      writeResults(path, resultsMarkdown(describeEnvironment(), { mode, lines: settingsLines, durationSeconds }, results, lookup));
      progress(`wrote ${path}`);
    }
  } finally {
    clearTimeout(watchdog);
    await Promise.all([servers.tributary.stop(), servers.baseline.stop()]);
  }
  if (shareWanted) await shareSection(settings.runs, write, wranglerDefaults, progress);
  await runSealedReads(sealedReadIds, settings.runs, write, wranglerDefaults, progress); // issue 19
  await startup(startupIds, settings.runs, write, progress);
  await runPushRows(pushIds, write, progress);
}

// Ctrl-C and friends: exit, and the exit hooks (test/e2e/support/wrangler-dev.ts, servers.ts)
// kill both servers' process groups and remove their directories.
for (const [signal, exitCode] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping both servers`);
    process.exit(exitCode);
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
