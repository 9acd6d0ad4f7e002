/**
 * The console's build (`npm run build` runs it before the Worker's): console/src bundled by
 * esbuild — Preact, uPlot and the styles, minified, nothing fetched at run time — into
 * dist/console/, which wrangler.toml's `[assets]` serves at `/`. The Worker's bundle never
 * imports any of it.
 *
 *   console/src/main.tsx ─► dist/console/assets/main.js + main.css
 *   console/src/index.html ─► dist/console/index.html
 */
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url).href);
export const consoleOutDirectory = join(root, "dist", "console");

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
