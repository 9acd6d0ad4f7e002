/**
 * The console's build (`npm run build` runs it before the Worker's): console/src bundled by
 * esbuild — Preact, uPlot and the styles, minified, nothing fetched at run time — into
 * dist/console/, which wrangler.toml's `[assets]` serves at `/`. The Worker's bundle never
 * imports any of it.
 *
 *   console/src/main.tsx ─► dist/console/assets/main.js + main.css
 *   console/src/index.html ─► dist/console/index.html
 *
 * The first argument, when given, is the folder to write instead (scripts/build.ts builds into a
 * staging folder and moves it into dist/ without ever leaving a running server without it).
 */
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url).href);
export const consoleOutDirectory = process.argv[2] === undefined ? join(root, "dist", "console") : resolve(process.argv[2]);

rmSync(consoleOutDirectory, { recursive: true, force: true });
mkdirSync(join(consoleOutDirectory, "assets"), { recursive: true });
await build({
  entryPoints: { main: join(root, "console", "src", "main.tsx") },
  outdir: join(consoleOutDirectory, "assets"),
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  tsconfig: join(root, "console", "tsconfig.json"),
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(root, "console", "src", "index.html"), join(consoleOutDirectory, "index.html"));
