/**
 * The built Worker and its settings, as `npm run build` leaves them in dist/worker/
 * (scripts/build-worker.ts): the bundle wrangler would deploy and what wrangler.toml says of
 * its Durable Objects, R2 bucket, variables and compatibility date. From them, the Worker's
 * Miniflare options — the one definition that `tributary serve`, `startTributary()` and a
 * user's @cloudflare/vitest-plugin config (`tributaryWorker()`) all run.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { V4WorkerOptions } from "miniflare";

/** dist/worker/worker-config.json. */
export interface WorkerConfig {
  name: string;
  compatibilityDate: string;
  compatibilityFlags: string[];
  durableObjects: { binding: string; className: string; sqlite: boolean }[];
  r2Buckets: { binding: string; bucketName: string }[];
  vars: Record<string, string>;
  /** wrangler.toml's `[assets]` (the web console): the folder relative to dist/worker/, and which paths reach the Worker first. */
  assets?: { directory: string; runWorkerFirst: boolean | string[] };
}

/**
 * Miniflare's options for one Worker in the form @cloudflare/vitest-plugin takes in
 * `miniflare.workers` (`durableObjects`, `r2Buckets`, `bindings`); Miniflare's own constructor
 * takes it through `convertV4MiniflareOptions`.
 */
export type TributaryWorkerOptions = V4WorkerOptions;

/**
 * dist/worker/ at the package's root: two levels above this file both as src/testing/*.ts
 * (in the repository) and as dist/testing/*.js (installed).
 */
export const workerDirectory = fileURLToPath(new URL("../../dist/worker/", import.meta.url).href);

export function readWorkerConfig(): WorkerConfig {
  try {
    return JSON.parse(readFileSync(`${workerDirectory}worker-config.json`, "utf8")) as WorkerConfig;
  } catch (error) {
    throw new Error(`the built Worker is missing in ${workerDirectory}: run \`npm run build\` in Tributary's repository`, { cause: error });
  }
}

export interface TributaryWorkerSettings {
  /** The Worker's name among Miniflare's Workers (a service binding names it). Default "tributary". */
  name?: string;
  /** Variables and secrets beyond wrangler.toml's, e.g. TRIBUTARY_ADMIN_TOKEN; they win over its vars. */
  vars?: Record<string, string>;
}

/**
 * Tributary as one Miniflare Worker: the built module, SQLite-backed Durable Objects and the
 * R2 bucket as wrangler.toml declares them, the console's static assets at `/`, its vars
 * overlaid with `vars`.
 */
export function tributaryWorker(settings: TributaryWorkerSettings = {}): TributaryWorkerOptions {
  const config = readWorkerConfig();
  const name = settings.name ?? config.name;
  return {
    name,
    // The bundle, then the WebAssembly modules it imports from beside it (libzstd's decoder,
    // src/zstd-wasm-decoder.ts), compiled modules as wrangler deploys them. Listed, not found by
    // rules: Miniflare 5 takes no module rules and follows no imports.
    modules: [
      { type: "ESModule", path: `${workerDirectory}index.js` },
      ...readdirSync(workerDirectory).filter((file) => file.endsWith(".wasm")).sort().map((file) => ({ type: "CompiledWasm" as const, path: `${workerDirectory}${file}` })),
    ],
    // Module names are paths below modulesRoot: workerd refuses a name that climbs out with "..".
    modulesRoot: workerDirectory,
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    bindings: { ...config.vars, ...settings.vars },
    durableObjects: Object.fromEntries(
      config.durableObjects.map(({ binding, className, sqlite }) => [binding, { className, useSQLite: sqlite }]),
    ),
    r2Buckets: Object.fromEntries(config.r2Buckets.map(({ binding, bucketName }) => [binding, bucketName])),
    ...(config.assets === undefined
      ? {}
      : { assets: { directory: resolve(workerDirectory, config.assets.directory), run_worker_first: config.assets.runWorkerFirst, routerConfig: { has_user_worker: true } } }),
  };
}
