/**
 * The JavaScript schema registry serializers users have, for e2e tests: test/serializers pins
 * them (its package.json and package-lock.json; they are not the project's dependencies, whose
 * install they would make ~170 MB heavier). The first call installs them with `npm ci` under
 * .cache/js-serializers/<the lock's hash> (git-ignored); later calls and runs reuse it. Answers
 * a `require` that loads them from there.
 *
 *   const { SchemaRegistryClient } = (await serializersRequire())("@confluentinc/schemaregistry");
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "./wrangler-dev.ts";

const pinned = join(repositoryRoot, "test", "serializers");
/** `npm ci` from the registry takes about 10 s here. */
const installTimeoutMs = 300_000;

let installing: Promise<NodeJS.Require> | undefined;

export function serializersRequire(): Promise<NodeJS.Require> {
  installing ??= (async () => {
    const lock = readFileSync(join(pinned, "package-lock.json"));
    const hash = createHash("sha256").update(lock).digest("hex").slice(0, 16);
    const directory = join(repositoryRoot, ".cache", "js-serializers", hash);
    // `.complete` is written last: an install cut short is made again from scratch.
    if (!existsSync(join(directory, ".complete"))) {
      rmSync(directory, { recursive: true, force: true });
      mkdirSync(directory, { recursive: true });
      for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(pinned, file), join(directory, file));
      try {
        await promisify(execFile)("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
          cwd: directory,
          timeout: installTimeoutMs,
          maxBuffer: 16 * 1024 * 1024,
        });
      } catch (error) {
        rmSync(directory, { recursive: true, force: true });
        throw new Error(`installing test/serializers from the npm registry failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      writeFileSync(join(directory, ".complete"), "");
    }
    return createRequire(join(directory, "package.json"));
  })();
  return installing;
}
