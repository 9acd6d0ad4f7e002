/**
 * A copy of the project in a temporary directory, for tests that need a developer's local files
 * (`.dev.vars`, `.env`) beside the wrangler configs: they write them into the copy, never into
 * the repository, where they could overwrite the developer's own or be left behind.
 *
 * The copy holds the sources, tests, examples, configs and the built CLI (dist/); its
 * `node_modules` is a link to the repository's (the same wrangler, vitest and the project's
 * Node 22). A developer's local files and wrangler's state are left out.
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { repositoryRoot } from "./wrangler-dev.ts";

/** Top-level folders that are installed, version control or benchmark runs, not the project. */
const leftOutFolders = new Set(["node_modules", ".git", "bench/.runs"]);

/** A developer's local files, wherever they are: variables (`.dev.vars[.<env>]`, `.env[.<anything>]`) and wrangler's state. */
function isLocalFile(name: string): boolean {
  return name === ".dev.vars" || name.startsWith(".dev.vars.") || name === ".env" || name.startsWith(".env.") || name === ".wrangler";
}

export interface ProjectCopy {
  directory: string;
  /** Removes the copy (its node_modules link, not what it points to). */
  remove(): void;
}

export function copyProject(): ProjectCopy {
  const directory = mkdtempSync(join(tmpdir(), "tributary-copy-"));
  try {
    cpSync(repositoryRoot, directory, {
      recursive: true,
      filter: (source) => {
        const path = relative(repositoryRoot, source);
        return !leftOutFolders.has(path) && !isLocalFile(basename(source));
      },
    });
    symlinkSync(join(repositoryRoot, "node_modules"), join(directory, "node_modules"), "dir");
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
