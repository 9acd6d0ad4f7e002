/**
 * Push subscriptions' rows (issue 15; docs/api.md, Subscriptions): records/s a subscription
 * delivers from one partition, batches of 100, ordered mode — to a Worker over a service
 * binding, and to a webhook (node:http in this process, on loopback). Measured, never asserted.
 *
 *   one `wrangler dev` with two configs: Tributary (wrangler.toml plus a [[services]] binding
 *   BENCH_PUSH_TARGET, in a temporary config) and bench/push-target/ ──► produce N records
 *   to a one-partition topic ──► create a subscription from "earliest" ──► poll its
 *   `delivered` every 100 ms until N ──► N / elapsed
 *
 * Its own section of bench/RESULTS.md (`npm run bench -- --only push`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, repositoryRoot, startDevServer, withoutLocalVariableFiles, type DevServer } from "../test/e2e/support/wrangler-dev.ts";
import { describeEnvironment, pushHeading, writeSection } from "./report.ts";

export const pushRows = [
  { id: "push.worker", label: "Push to a Worker over a service binding (ordered, batch 100, one partition)", records: 200_000 },
  { id: "push.webhook", label: "Push to a webhook on loopback (node:http, ordered, batch 100, one partition)", records: 50_000 },
] as const;

export type PushRowId = (typeof pushRows)[number]["id"];

export function pushRowsMatching(only: string | undefined): PushRowId[] {
  return pushRows.map((row) => row.id).filter((id) => only === undefined || only.split(",").some((text) => id.includes(text)));
}

const wrangler = join(repositoryRoot, "node_modules", ".bin", "wrangler");
/** A row gives up after this long: far below any rate worth reporting. */
const rowTimeoutMs = 300_000;

/** Tributary's wrangler.toml with absolute paths and the target's binding, in a temporary directory. */
function tributaryConfig(directory: string): string {
  const toml = readFileSync(join(repositoryRoot, "wrangler.toml"), "utf8")
    .replace('main = "src/index.ts"', `main = ${JSON.stringify(join(repositoryRoot, "src", "index.ts"))}`)
    .replace('directory = "./dist/console"', `directory = ${JSON.stringify(join(repositoryRoot, "dist", "console"))}`);
  const path = join(directory, "wrangler.toml");
  writeFileSync(path, `${toml}\n[[services]]\nbinding = "BENCH_PUSH_TARGET"\nservice = "tributary-bench-push-target"\n`, "utf8");
  return path;
}

async function startPushServer(webhookOrigin: string): Promise<DevServer & { removeConfig(): void }> {
  const directory = mkdtempSync(join(tmpdir(), "tributary-bench-push-"));
  const config = tributaryConfig(directory);
  const removeConfig = () => rmSync(directory, { recursive: true, force: true });
  try {
    const server = await startDevServer(
      (port, inspector, persistTo) => ({
        command: wrangler,
        args: [
          "dev", "--config", config, "--config", join(repositoryRoot, "bench", "push-target", "wrangler.jsonc"),
          "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", persistTo,
          "--show-interactive-dev-session=false", "--log-level", "warn",
          ...withoutLocalVariableFiles.args,
          "--var", `SUBSCRIPTION_ORIGINS:${webhookOrigin}`,
        ],
      }),
      { env: { ...withoutLocalVariableFiles.env, WRANGLER_SEND_METRICS: "false", X_LOCAL_OBSERVABILITY: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } },
    );
    return { ...server, removeConfig };
  } catch (error) {
    removeConfig();
    throw error;
  }
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Produces `records` to a new one-partition topic, then times a subscription delivering them all. */
async function measureRow(url: string, row: (typeof pushRows)[number], target: unknown): Promise<{ recordsPerSecond: number; seconds: number }> {
  const topic = `bench-${row.id.replace(".", "-")}`;
  await call(url, "POST", "/v1/topics", { name: topic, partitions: 1 });
  for (let sent = 0; sent < row.records; sent += 1_000) {
    const records = Array.from({ length: 1_000 }, (_, index) => ({ value: `{"order":${sent + index},"item":"lamp","email":"someone@example.com"}` }));
    await call(url, "POST", `/v1/topics/${topic}/records`, { records, acks: 1 });
  }
  const startedAt = performance.now();
  await call(url, "POST", "/v1/subscriptions", { name: topic, topic, mode: "ordered", target, from: "earliest", batchSize: 100, maxWaitMs: 0 });
  for (;;) {
    const described = await call(url, "GET", `/v1/subscriptions/${topic}`);
    if (described.delivered >= row.records) break;
    if (performance.now() - startedAt > rowTimeoutMs) throw new Error(`${row.id}: ${described.delivered} of ${row.records} delivered after ${rowTimeoutMs} ms (last error: ${described.lastError})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - startedAt) / 1000;
  return { recordsPerSecond: row.records / seconds, seconds };
}

export async function runPushRows(ids: readonly PushRowId[], write: boolean, progress: (line: string) => void): Promise<void> {
  if (ids.length === 0) return;
  let webhookRecords = 0;
  const webhook = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      webhookRecords += (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { records: unknown[] }).records.length;
      response.writeHead(200).end();
    });
  });
  const webhookPort = await freePort();
  await new Promise<void>((resolve) => webhook.listen(webhookPort, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${webhookPort}`;
  progress("push rows: Tributary and the push target under one wrangler dev");
  const server = await startPushServer(origin);
  const lines: string[] = [];
  try {
    for (const row of pushRows) {
      if (!ids.includes(row.id)) continue;
      const target = row.id === "push.worker" ? { service: "BENCH_PUSH_TARGET" } : { url: `${origin}/hook`, secret: "bench-secret" };
      const figure = await measureRow(server.url, row, target);
      progress(`${row.id}: ${Math.round(figure.recordsPerSecond)} records/s (${row.records} records in ${figure.seconds.toFixed(2)} s)`);
      lines.push(`| ${row.label} | ${Math.round(figure.recordsPerSecond).toLocaleString("en-US")} | ${row.records.toLocaleString("en-US")} in ${figure.seconds.toFixed(2)} s |`);
    }
  } finally {
    await server.stop();
    server.removeConfig();
    await new Promise<void>((resolve) => webhook.close(() => resolve()));
  }
  if (ids.includes("push.webhook") && webhookRecords < pushRows[1].records) throw new Error(`the webhook got ${webhookRecords} records`);
  const environment = describeEnvironment();
  const section = [
    pushHeading,
    "",
    `${environment.date}, commit ${environment.commit}: one run each (\`npm run bench -- --only push\`, bench/push.ts); from a subscription's creation until its \`delivered\` counter (polled every 100 ms) reaches every record produced before it. The target answers at once: the figure is Tributary's side of a push (read from the partition's leader, call, settle and persist).`,
    "",
    "| row | records/s | records in |",
    "|---|---:|---|",
    ...lines,
  ].join("\n");
  console.log(`\n${section}`);
  if (write) writeSection(join(repositoryRoot, "bench", "RESULTS.md"), pushHeading, section);
}
