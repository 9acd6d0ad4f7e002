/**
 * npm's `prepare` (after `npm install` and `npm ci` in the repository, before `npm pack`):
 * builds dist/ (scripts/build.ts). Except under `npx tributary …` inside the repository: npm
 * then installs this folder into its own cache first, which runs `prepare` here; the CLI is run
 * as it is built (`npm run build` rebuilds it), so a running `npm start` is left alone.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "./build.ts";

const root = fileURLToPath(new URL("../", import.meta.url).href);

if (process.env.npm_command === "exec" && existsSync(join(root, "dist", "cli", "main.js"))) {
  console.log("tributary: dist/ is built; npx runs it as it is (npm run build rebuilds it)");
} else {
  build();
}
