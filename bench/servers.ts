/**
 * The two servers the benchmark measures, each a `wrangler dev` started by the e2e layer's
 * startDevServer (free ports, a fresh --persist-to directory, its own process group):
 * Tributary from the repository's wrangler.toml and the baseline from
 * bench/baseline/wrangler.jsonc, with the same flags and environment.
 *
 *   wrangler deploy --dry-run --outdir <tmp>  (one fixed build of each Worker, taken at the start)
 *     ──► wrangler dev <tmp>/<entry>.js --no-bundle --config <its config> …
 *
 * The build is a snapshot: `wrangler dev` would otherwise rebuild and restart the Worker
 * whenever someone edits src/ during the run, and the figures would mix two versions (and a
 * restart). Both servers are built and run the same way.
 *
 * Unless asked for wrangler's defaults, two dev-only costs paid on every request are turned
 * off for both: the local trace collector (X_LOCAL_OBSERVABILITY, which stores every
 * request's trace in a SQLite database on disk) and the request log line wrangler's Node
 * process prints (--log-level warn). Request.cf is never fetched from the internet
 * (CLOUDFLARE_CF_FETCH_ENABLED=false): the benchmark stays on loopback.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot, startDevServer, withoutLocalVariableFiles, type DevServer } from "../test/e2e/support/wrangler-dev.ts";
import type { ServerName } from "./transports.ts";

export interface BenchServer extends DevServer {
  /** Where wrangler serves the Worker's V8 inspector (DevTools protocol), for bench/profile.ts. */
  inspectorUrl: string;
}

const configs: Record<ServerName, string> = {
  tributary: "wrangler.toml",
  baseline: "bench/baseline/wrangler.jsonc",
};
const wrangler = join(repositoryRoot, "node_modules", ".bin", "wrangler");
/** A dry-run build takes about 2 s here. */
const buildTimeoutMs = 120_000;

function environment(wranglerDefaults: boolean): NodeJS.ProcessEnv {
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING = "true"; // the config is read once, like the build
  if (!wranglerDefaults) process.env.X_LOCAL_OBSERVABILITY = "false";
  return { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };
}

/** Bundles a Worker as `wrangler deploy` would, into a fresh directory; answers it and the entry module. */
async function build(server: ServerName, env: NodeJS.ProcessEnv): Promise<{ directory: string; entry: string }> {
  const directory = mkdtempSync(join(tmpdir(), `tributary-bench-${server}-`));
  try {
    await promisify(execFile)(wrangler, ["deploy", "--dry-run", "--outdir", directory, "--config", configs[server]], {
      cwd: repositoryRoot,
      env,
      timeout: buildTimeoutMs,
    });
    const modules = readdirSync(directory).filter((name) => name.endsWith(".js"));
    if (modules.length !== 1) throw new Error(`expected one module in the ${server} build, found ${modules.join(", ") || "none"}`);
    return { directory, entry: join(directory, modules[0]!) };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`could not build ${server} with wrangler deploy --dry-run`, { cause: error });
  }
}

export async function startServer(server: ServerName, wranglerDefaults: boolean): Promise<BenchServer> {
  const env = environment(wranglerDefaults);
  const { directory, entry } = await build(server, env);
  const removeBuild = () => rmSync(directory, { recursive: true, force: true });
  process.once("exit", removeBuild);
  let inspectorPort = 0;
  let started: DevServer;
  try {
    started = await startDevServer((port, inspector, persistTo) => {
      inspectorPort = inspector;
      return {
        command: wrangler,
        args: [
          "dev", entry, "--no-bundle",
          "--config", configs[server],
          "--ip", "127.0.0.1",
          "--port", String(port),
          "--inspector-port", String(inspector),
          "--persist-to", persistTo,
          "--show-interactive-dev-session=false",
          ...withoutLocalVariableFiles.args, // a developer's .dev.vars (an admin token, say) changes no measurement
          ...(wranglerDefaults ? [] : ["--log-level", "warn"]),
          // Tributary's debug counters (docs/api.md): object requests and rows written per 1,000 records (bench/cost.ts).
          ...(server === "tributary" ? ["--var", "TRIBUTARY_FAULTS:1", "--var", "TRIBUTARY_DEBUG_STATS:1"] : []),
        ],
      };
    }, { env: withoutLocalVariableFiles.env });
  } catch (error) {
    removeBuild();
    throw error;
  }
  return {
    ...started,
    inspectorUrl: `ws://127.0.0.1:${inspectorPort}/ws`,
    stop: () => started.stop().finally(removeBuild),
  };
}

/** Both servers at once; if one fails to start, the other is stopped. */
export async function startServers(wranglerDefaults: boolean): Promise<Record<ServerName, BenchServer>> {
  const [tributary, baseline] = await Promise.allSettled([startServer("tributary", wranglerDefaults), startServer("baseline", wranglerDefaults)]);
  if (tributary.status === "fulfilled" && baseline.status === "fulfilled") return { tributary: tributary.value, baseline: baseline.value };
  await Promise.all([tributary, baseline].map((started) => (started.status === "fulfilled" ? started.value.stop() : undefined)));
  throw [tributary, baseline].find((started) => started.status === "rejected")!.reason;
}
