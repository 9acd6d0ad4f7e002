/**
 * `npm run build` (scripts/build.ts: tsc, the console, then this, into a staging folder that then
 * replaces dist/ file by file; the folder to write is the first argument, dist/worker/ without
 * one): the Worker bundled for Miniflare, and the settings of
 * wrangler.toml that `tributary serve` and `tributary/testing` need, so that wrangler.toml
 * stays the one place that says which Durable Objects, bucket and variables Tributary has.
 *
 *   wrangler deploy --dry-run --outdir <tmp>  ──►  dist/worker/index.js   (the ES module wrangler deploys)
 *                                             ──►  dist/worker/<hash>-wasm-zstd.wasm  (the modules it imports:
 *                                                   libzstd's decoder, src/zstd-wasm-decoder.ts)
 *   wrangler.toml (wrangler's own reader)     ──►  dist/worker/worker-config.json  (src/testing/worker-config.ts)
 *
 * `[assets]` (the web console, console/build.ts → dist/console/) is mapped: the runner serves
 * the same files at `/` with the same `run_worker_first` rules, from the folder beside
 * dist/worker/. A binding the Miniflare runner does not map (KV, D1, queues, services, an
 * assets binding, crons…) stops the build with its name, instead of a runner that silently
 * lacks it.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_getDurableObjectClassNameToUseSQLiteMap, unstable_readConfig } from "wrangler";
import type { WorkerConfig } from "../src/testing/worker-config.ts";

const root = fileURLToPath(new URL("../", import.meta.url).href);
const configPath = join(root, "wrangler.toml");
/** Where the package has the Worker: paths in worker-config.json are relative to it. */
const packagedDirectory = join(root, "dist", "worker");
const outDirectory = process.argv[2] === undefined ? packagedDirectory : resolve(process.argv[2]);

/** Fields of wrangler's config that would need a mapping in src/testing/worker-config.ts if they were ever used. */
const unmappedFields = [
  "kv_namespaces", "d1_databases", "queues.producers", "queues.consumers", "services", "workflows",
  "analytics_engine_datasets", "hyperdrive", "vectorize", "send_email", "ai", "browser", "assets.binding",
  "triggers.crons",
] as const;

function readWorkerConfig(): WorkerConfig {
  const config = unstable_readConfig({ config: configPath });
  const present = unmappedFields.filter((field) => {
    const value = field.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
    return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null && !(typeof value === "object" && Object.keys(value).length === 0);
  });
  if (present.length > 0) throw new Error(`wrangler.toml uses ${present.join(", ")}: map it in src/testing/worker-config.ts and scripts/build-worker.ts`);
  const sqlite = unstable_getDurableObjectClassNameToUseSQLiteMap(config.migrations);
  const vars = Object.entries(config.vars ?? {}).map(([name, value]) => {
    if (typeof value !== "string") throw new Error(`wrangler.toml: vars.${name} must be a string for the Miniflare runner`);
    return [name, value] as const;
  });
  return {
    name: config.name!,
    compatibilityDate: config.compatibility_date!,
    compatibilityFlags: config.compatibility_flags ?? [],
    durableObjects: config.durable_objects.bindings.map((binding: { name: string; class_name: string }) => ({
      binding: binding.name,
      className: binding.class_name,
      sqlite: sqlite.get(binding.class_name) === true,
    })),
    r2Buckets: config.r2_buckets.map((bucket: { binding: string; bucket_name?: string }) => ({ binding: bucket.binding, bucketName: bucket.bucket_name! })),
    vars: Object.fromEntries(vars),
    ...(config.assets === undefined ? {} : { assets: assetsOf(config.assets) }),
  };
}

/** wrangler.toml's `[assets]`, its folder relative to dist/worker/ (where the runner finds worker-config.json). */
function assetsOf(assets: { directory?: string; run_worker_first?: boolean | string[]; html_handling?: string; not_found_handling?: string }): NonNullable<WorkerConfig["assets"]> {
  if (assets.directory === undefined) throw new Error("wrangler.toml: [assets] needs a directory");
  const directory = resolve(root, assets.directory);
  if (!directory.startsWith(join(root, "dist"))) throw new Error(`wrangler.toml: [assets] directory must be inside dist/ (it ships with the package): ${assets.directory}`);
  if (assets.html_handling !== undefined || assets.not_found_handling !== undefined) {
    throw new Error("wrangler.toml: [assets] html_handling / not_found_handling: map them in src/testing/worker-config.ts and scripts/build-worker.ts");
  }
  return { directory: relative(packagedDirectory, directory), runWorkerFirst: assets.run_worker_first ?? false };
}

/**
 * `assetsDirectory`: wrangler's dry run refuses a missing `[assets]` folder. On a fresh clone
 * dist/console/ does not exist yet (this build's console is in the staging folder, moved into
 * dist/ after), so an empty one is made; the bundle does not depend on its contents.
 */
function bundle(assetsDirectory: string | undefined): void {
  if (assetsDirectory !== undefined) mkdirSync(assetsDirectory, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "tributary-build-"));
  try {
    execFileSync(join(root, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", scratch, "--config", configPath], {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    rmSync(outDirectory, { recursive: true, force: true });
    mkdirSync(outDirectory, { recursive: true });
    // The entry and the WebAssembly modules it imports (Miniflare follows index.js's imports from modulesRoot).
    for (const name of readdirSync(scratch).filter((file) => file === "index.js" || file.endsWith(".wasm"))) copyFileSync(join(scratch, name), join(outDirectory, name));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const config = readWorkerConfig();
bundle(config.assets === undefined ? undefined : resolve(packagedDirectory, config.assets.directory));
writeFileSync(join(outDirectory, "worker-config.json"), `${JSON.stringify(config, null, 2)}\n`);
