/**
 * Where the CPU goes during a run: the CPU time each part of a `wrangler dev` server used,
 * read from /proc (Linux only; elsewhere the benchmark runs without these figures).
 *
 * A `wrangler dev` process group holds three kinds of process:
 * - runtime: the workerd that runs the Worker and its Durable Objects (it has the inspector);
 * - proxy: the workerd in front of it that wrangler uses for reloads and request logging;
 * - wrangler: Node, bundling and printing.
 * Only the runtime's share is the service's own work; the rest is the dev server's, paid by
 * Tributary and the baseline alike, per request.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { livingMembers } from "../test/e2e/support/wrangler-dev.ts";

export interface ServerCpu {
  runtimeMs: number;
  /**
   * Of runtimeMs, the kernel's (system time: writes of SQLite pages and R2 blobs, page faults).
   * It swings between runs of the same code — 250 to 1,250 ms in 2-s runs of binary produce at
   * 4 in flight here, while user time stayed at 0.8–1.4 s: this VM hands freed memory back to
   * its host, so every page a run writes afresh costs a fault there (RESULTS.md, "The
   * write-ahead log, and this machine's fresh pages"). The user part alone is the steadier
   * measure of a server's own code.
   */
  runtimeSystemMs: number;
  proxyMs: number;
  wranglerMs: number;
}

let clockTicksPerSecond: number | undefined;

function ticksPerSecond(): number {
  clockTicksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return clockTicksPerSecond;
}

/** User + system CPU time of one process, and the system part, in ms; undefined when it is gone. */
function processCpuMs(pid: string): { ms: number; systemMs: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces, inside parentheses): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ms = (ticks: number) => (ticks * 1000) / ticksPerSecond();
  return { ms: ms(Number(fields[11]) + Number(fields[12])), systemMs: ms(Number(fields[12])) };
}

type ProcessKind = "runtimeMs" | "proxyMs" | "wranglerMs";

function kindOf(command: string): ProcessKind {
  return command.includes("workerd") && command.includes("--inspector-addr") ? "runtimeMs"
    : command.includes("workerd") ? "proxyMs"
    : "wranglerMs";
}

/**
 * Resident memory of the server's runtime workerd (the process that runs the Worker and its
 * objects), in bytes, from /proc/<pid>/status; undefined without /proc or when it is gone.
 */
export function runtimeResidentBytes(processGroupId: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  for (const line of livingMembers(processGroupId)) {
    const [pid, , , ...args] = line.split(/\s+/);
    if (pid === undefined || kindOf(args.join(" ")) !== "runtimeMs") continue;
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      return match ? Number(match[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** CPU used so far by each member of a server's process group, by pid. */
export type ServerCpuSnapshot = Map<string, { kind: ProcessKind; ms: number; systemMs: number }>;

/** Where /proc is missing, undefined. */
export function serverCpu(processGroupId: number): ServerCpuSnapshot | undefined {
  if (process.platform !== "linux") return undefined;
  const snapshot: ServerCpuSnapshot = new Map();
  for (const line of livingMembers(processGroupId)) {
    const [pid, , , ...args] = line.split(/\s+/);
    const command = args.join(" ");
    const used = pid === undefined ? undefined : processCpuMs(pid);
    if (used === undefined) continue;
    snapshot.set(pid!, { kind: kindOf(command), ...used });
  }
  return snapshot;
}

/**
 * CPU used between two snapshots. A process that ended in between is left out (its last
 * moments are unknown); one that started in between counts from its start.
 */
export function cpuBetween(before: ServerCpuSnapshot | undefined, after: ServerCpuSnapshot | undefined): ServerCpu | undefined {
  if (!before || !after) return undefined;
  const used: ServerCpu = { runtimeMs: 0, runtimeSystemMs: 0, proxyMs: 0, wranglerMs: 0 };
  for (const [pid, { kind, ms, systemMs }] of after) {
    used[kind] += ms - (before.get(pid)?.ms ?? 0);
    if (kind === "runtimeMs") used.runtimeSystemMs += systemMs - (before.get(pid)?.systemMs ?? 0);
  }
  return used;
}

/**
 * CPU time the whole machine spent busy so far (all cores, every process), in ms; undefined
 * without /proc. Less what the benchmark and its servers used, it tells how much other work
 * shared the machine during a run.
 */
export function machineBusyMs(): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
    return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

export function totalMs(cpu: ServerCpu): number {
  return cpu.runtimeMs + cpu.proxyMs + cpu.wranglerMs;
}

/** The benchmark's own CPU (the client), in ms. */
export function clientCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
