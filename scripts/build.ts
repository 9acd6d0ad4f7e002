/**
 * `npm run build`: the package's dist/ — the client, the CLI and tributary/testing compiled by
 * tsc (tsconfig.build.json), the web console (console/build.ts) and the Worker bundled for
 * Miniflare (scripts/build-worker.ts) — built whole into a staging folder first, then moved into
 * dist/ file by file. A `wrangler dev` (`npm start`) serves dist/console/ and reloads when it
 * changes, so dist/ is never emptied: each file is replaced in one rename (a new name in the same
 * folder, renamed over the old), files the new build lacks are removed after, and a build that
 * fails leaves dist/ as it was.
 *
 *   tsc, console, worker ──► .dist-next/ ──(file by file: write beside, rename over)──► dist/
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, rmdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url).href);
const dist = join(root, "dist");
const staging = join(root, ".dist-next");
const bin = join(root, "node_modules", ".bin");

/** Every file under `directory`, as paths relative to it. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, encoding: "utf8" }).filter((path) => statSync(join(directory, path)).isFile());
}

/** Makes `target` hold exactly the files of `source`, each replaced in one rename; `target` is never empty meanwhile. */
export function moveInto(source: string, target: string): void {
  const fresh = filesUnder(source);
  for (const path of fresh) {
    const destination = join(target, path);
    mkdirSync(dirname(destination), { recursive: true });
    const beside = `${destination}.next-${process.pid}`;
    copyFileSync(join(source, path), beside);
    renameSync(beside, destination);
  }
  const kept = new Set(fresh);
  for (const path of filesUnder(target)) if (!kept.has(path)) rmSync(join(target, path));
  // Folders the new build no longer has, deepest first.
  const folders = readdirSync(target, { recursive: true, encoding: "utf8" }).filter((path) => statSync(join(target, path)).isDirectory());
  for (const folder of folders.sort((a, b) => b.length - a.length)) {
    if (readdirSync(join(target, folder)).length === 0) rmdirSync(join(target, folder));
  }
}

function node(script: string, ...args: string[]): void {
  execFileSync(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", join(root, script), ...args], { cwd: root, stdio: "inherit" });
}

export function build(): void {
  rmSync(staging, { recursive: true, force: true });
  execFileSync(join(bin, "tsc"), ["-p", "tsconfig.build.json", "--outDir", staging], { cwd: root, stdio: "inherit" });
  node("console/build.ts", join(staging, "console"));
  node("scripts/build-worker.ts", join(staging, "worker"));
  mkdirSync(dist, { recursive: true });
  moveInto(staging, dist);
  rmSync(staging, { recursive: true, force: true });
}

if (process.argv[1] !== undefined && relative(fileURLToPath(import.meta.url), process.argv[1]) === "") build();
