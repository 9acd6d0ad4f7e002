/**
 * Processes the e2e layer starts, remembered outside the test process: a file per process in
 * a directory that the layer's global setup makes (global-setup.ts, TRIBUTARY_E2E_PROCESSES),
 * removed once the process is stopped. Every test stops what it started, also when it fails
 * (afterAll, and each helper's exit handler); whatever a test process could not stop — it was
 * killed, or hung past its teardown — the global teardown stops after the whole layer, and
 * says so: nothing a test started outlives `npm test`.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Leftover {
  /** What it is, for the line the teardown prints. */
  what: string;
  /** It leads its own process group (spawned detached): the whole group is stopped. */
  group: boolean;
}

function directory(): string | undefined {
  const dir = process.env.TRIBUTARY_E2E_PROCESSES;
  if (dir === undefined || dir === "") return undefined;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Remembers a process until `forget(pid)`. */
export function remember(pid: number | undefined, leftover: Leftover): void {
  const dir = directory();
  if (dir === undefined || pid === undefined) return;
  writeFileSync(join(dir, String(pid)), JSON.stringify(leftover));
}

export function forget(pid: number | undefined): void {
  const dir = directory();
  if (dir === undefined || pid === undefined) return;
  rmSync(join(dir, String(pid)), { force: true });
}
