/**
 * The e2e layer's last resort (test/e2e/support/leftovers.ts, global-setup.ts): a process a
 * test remembered and never stopped — a test process killed mid-test leaves such — is stopped
 * by the global teardown, its whole process group when it leads one; one stopped and
 * forgotten is left alone.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import setup from "../../e2e/support/global-setup.ts";
import { forget, remember } from "../../e2e/support/leftovers.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const before = process.env.TRIBUTARY_E2E_PROCESSES;
afterEach(() => {
  process.env.TRIBUTARY_E2E_PROCESSES = before;
  vi.restoreAllMocks();
});

describe("the e2e layer's global teardown", () => {
  it("stops the processes a test left running, with their process group, and says so", async () => {
    const teardown = setup();
    // A group leader (as wrangler dev is) with a child of its own.
    const leader = spawn("sh", ["-c", "sleep 60 & wait"], { detached: true, stdio: "ignore" });
    const stopped = spawn("sleep", ["60"], { stdio: "ignore" });
    remember(leader.pid, { what: "a test's server", group: true });
    remember(stopped.pid, { what: "a stopped helper", group: false });
    stopped.kill("SIGKILL");
    await new Promise((resolve) => stopped.once("exit", resolve));
    forget(stopped.pid);
    const warnings: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((line: string) => void warnings.push(line));
    const exited = new Promise((resolve) => leader.once("exit", resolve));
    teardown();
    await exited;
    expect(alive(leader.pid!)).toBe(false);
    expect(warnings).toEqual([`e2e teardown: stopped a test's server (pid ${leader.pid}), which a test left running`]);
  });
});
