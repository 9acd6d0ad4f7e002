/**
 * One measured run with what it cost: the measured server's CPU per unit of work (bench/cpu.ts)
 * and how busy the rest of the machine was meanwhile; and the medians that make a row's figure.
 */
import { availableParallelism } from "node:os";
import type { Endpoint } from "./client.ts";
import { clientCpuMs, cpuBetween, machineBusyMs, serverCpu, totalMs, type ServerCpu, type ServerCpuSnapshot } from "./cpu.ts";
import { median, type LatencyRun, type ThroughputRun } from "./measure.ts";
import type { CpuFigure, Figure } from "./scenarios.ts";
import type { ServerName } from "./transports.ts";

export type Run = ThroughputRun | LatencyRun;

export function isThroughput(run: Run): run is ThroughputRun {
  return "recordsPerSecond" in run;
}

export interface MeasuredRun {
  run: Run;
  cpu?: CpuFigure;
  /** Share of the machine's CPU that processes other than the benchmark and its servers used during the run. */
  otherLoad?: number;
}

interface CpuSnapshot {
  at: number;
  machineMs: number | undefined;
  clientMs: number;
  servers: Record<ServerName, ServerCpuSnapshot | undefined>;
}

function cpuSnapshot(servers: Record<ServerName, Endpoint>): CpuSnapshot {
  const of = (endpoint: Endpoint) => (endpoint.processGroupId === undefined ? undefined : serverCpu(endpoint.processGroupId));
  return {
    at: performance.now(),
    machineMs: machineBusyMs(),
    clientMs: clientCpuMs(),
    servers: { tributary: of(servers.tributary), baseline: of(servers.baseline) },
  };
}

/** Runs `measure` between two CPU snapshots: the measured server's CPU per unit of work, and how busy the rest of the machine was. */
export async function measureWithCpu(servers: Record<ServerName, Endpoint>, server: ServerName, measure: () => Promise<Run>): Promise<MeasuredRun> {
  const before = cpuSnapshot(servers);
  const run = await measure();
  const after = cpuSnapshot(servers);
  const clientMs = after.clientMs - before.clientMs;
  const used = cpuBetween(before.servers[server], after.servers[server]);
  const ours = [before.servers.tributary, before.servers.baseline].every(Boolean)
    ? clientMs + (["tributary", "baseline"] as const).reduce((sum, name) => sum + totalMs(cpuBetween(before.servers[name], after.servers[name])!), 0)
    : undefined;
  const machineMs = before.machineMs === undefined || after.machineMs === undefined ? undefined : after.machineMs - before.machineMs;
  const otherLoad = machineMs === undefined || ours === undefined
    ? undefined
    : Math.max(0, machineMs - ours) / ((after.at - before.at) * availableParallelism());
  return { run, cpu: used && cpuPerUnit(run, { ...used, clientMs }), otherLoad };
}

/** CPU per 1,000 records for throughput runs, per record for latency runs (each record is one produce request). */
function cpuPerUnit(run: Run, used: ServerCpu & { clientMs: number }): CpuFigure {
  const throughput = isThroughput(run);
  const units = throughput ? run.records / 1000 : run.samples;
  return {
    per: throughput ? "1,000 records" : "record",
    runtimeMs: used.runtimeMs / units,
    runtimeUserMs: (used.runtimeMs - used.runtimeSystemMs) / units,
    devServerMs: (used.proxyMs + used.wranglerMs) / units,
    clientMs: used.clientMs / units,
  };
}

export function describeRun({ run, cpu, otherLoad }: MeasuredRun): string {
  const figure = isThroughput(run)
    ? `${Math.round(run.recordsPerSecond).toLocaleString("en-US")} rec/s (${run.requests} requests in ${run.seconds.toFixed(2)} s)`
    : `p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms (${run.samples} samples)`;
  const other = otherLoad === undefined ? "" : `; other processes ${(otherLoad * 100).toFixed(0)}% of the CPU`;
  if (!cpu) return figure + other;
  return `${figure}; CPU ms per ${cpu.per}: runtime ${cpu.runtimeMs.toFixed(2)} (user ${cpu.runtimeUserMs.toFixed(2)}), dev server ${cpu.devServerMs.toFixed(2)}, client ${cpu.clientMs.toFixed(2)}${other}`;
}

function medianCpu(runs: readonly MeasuredRun[]): CpuFigure | undefined {
  const cpus = runs.flatMap((run) => (run.cpu ? [run.cpu] : []));
  if (cpus.length === 0) return undefined;
  return {
    per: cpus[0]!.per,
    runtimeMs: median(cpus.map((cpu) => cpu.runtimeMs)),
    runtimeUserMs: median(cpus.map((cpu) => cpu.runtimeUserMs)),
    devServerMs: median(cpus.map((cpu) => cpu.devServerMs)),
    clientMs: median(cpus.map((cpu) => cpu.clientMs)),
  };
}

export function figureOf(measuredRuns: MeasuredRun[]): Figure {
  const runs = measuredRuns.map((measured) => measured.run);
  const cpu = medianCpu(measuredRuns);
  const loads = measuredRuns.flatMap((measured) => (measured.otherLoad === undefined ? [] : [measured.otherLoad]));
  const otherLoadMax = loads.length > 0 ? Math.max(...loads) : undefined;
  const throughput = runs.filter(isThroughput);
  if (throughput.length === runs.length) {
    return {
      recordsPerSecond: median(throughput.map((run) => run.recordsPerSecond)),
      megabytesPerSecond: median(throughput.map((run) => run.megabytesPerSecond)),
      cpu,
      otherLoadMax,
      runs: throughput.map((run) => run.recordsPerSecond),
    };
  }
  const latency = runs as LatencyRun[];
  return {
    p50Ms: median(latency.map((run) => run.p50Ms)),
    p99Ms: median(latency.map((run) => run.p99Ms)),
    cpu,
    otherLoadMax,
    runs: latency.map((run) => run.p99Ms),
  };
}
