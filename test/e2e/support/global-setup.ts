/**
 * The e2e layer's global setup (vitest.config.ts): a directory where the tests remember the
 * processes they start (leftovers.ts), made before any test file runs and read after the last:
 * a process still running then is stopped (its process group, when it leads one) and named.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Leftover } from "./leftovers.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "tributary-e2e-processes-"));
  process.env.TRIBUTARY_E2E_PROCESSES = dir;
  return () => {
    for (const name of readdirSync(dir)) {
      const pid = Number(name);
      const leftover = JSON.parse(readFileSync(join(dir, name), "utf8")) as Leftover;
      if (!Number.isInteger(pid) || !alive(pid)) continue;
      try {
        process.kill(leftover.group ? -pid : pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
      console.warn(`e2e teardown: stopped ${leftover.what} (pid ${pid}), which a test left running`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
