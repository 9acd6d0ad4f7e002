/**
 * `npm run bench -- --profile ROW`: where Tributary's own CPU goes in one row of the table.
 * Starts Tributary alone, prepares and warms the row up, then runs it once while V8's
 * sampling profiler records in the Worker's isolate (the router and the Durable Objects run
 * in the same one under wrangler dev), and prints the functions with the most self time,
 * each with its line of the bundled source.
 *
 * The profiler is reached over the DevTools protocol at wrangler's --inspector-port, which
 * only accepts a local Origin. Sampling attributes time spent in native code (RPC, SQLite,
 * streams) to the JavaScript function that called it; read the list as "where to look".
 */
import type { Endpoint } from "./client.ts";
import { connect, type Inspector } from "./inspector.ts";
import { createExecutor, type Settings } from "./execute.ts";
import type { Scenario } from "./scenarios.ts";
import { startServer } from "./servers.ts";
import { transports, type ServerName, type TransportName } from "./transports.ts";

/** Fine enough for requests of a few milliseconds; coarser loses them, finer slows the isolate. */
const samplingIntervalMicroseconds = 200;
const functionsShown = 30;

interface CallFrame {
  functionName: string;
  scriptId: string;
  lineNumber: number;
}

export interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}


/** A gap between two samples longer than this many sampling intervals went unsampled: it is not any function's. */
const unsampledGapIntervals = 10;
export const unsampledLabel = "(unsampled gaps)";

/**
 * Self time per function (ms), with its source line, most first. Each sample stands for the
 * time until the next one (timeDeltas[i + 1], as DevTools counts it). Under load the sampler
 * misses stretches (the thread ran another isolate — local R2's — or the sampler's thread was
 * not scheduled): a gap longer than unsampledGapIntervals intervals is reported as
 * `(unsampled gaps)` rather than charged to the function sampled before it.
 */
export async function selfTimes(inspector: Pick<Inspector, "call">, profile: Profile, intervalMicroseconds = samplingIntervalMicroseconds): Promise<{ label: string; ms: number }[]> {
  const microsecondsByNode = new Map<number, number>();
  let unsampledMicroseconds = 0;
  profile.samples.forEach((node, index) => {
    const span = profile.timeDeltas[index + 1] ?? 0;
    if (span > unsampledGapIntervals * intervalMicroseconds) unsampledMicroseconds += span;
    else microsecondsByNode.set(node, (microsecondsByNode.get(node) ?? 0) + span);
  });
  const sources = new Map<string, string[]>();
  const byLabel = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, scriptId, lineNumber } = node.callFrame;
    if (scriptId !== "0" && !sources.has(scriptId)) {
      const answer = await inspector.call<{ scriptSource?: string }>("Debugger.getScriptSource", { scriptId }).catch(() => ({ scriptSource: "" }));
      sources.set(scriptId, (answer.scriptSource ?? "").split("\n"));
    }
    const line = (sources.get(scriptId)?.[lineNumber] ?? "").trim().slice(0, 80);
    const label = `${functionName || "(anonymous)"}${line ? `  ‹${line}›` : ""}`;
    byLabel.set(label, (byLabel.get(label) ?? 0) + (microsecondsByNode.get(node.id) ?? 0) / 1000);
  }
  if (unsampledMicroseconds > 0) byLabel.set(unsampledLabel, unsampledMicroseconds / 1000);
  return [...byLabel].map(([label, ms]) => ({ label, ms })).sort((a, b) => b.ms - a.ms);
}

export async function profileRow(scenario: Scenario, settings: Settings, wranglerDefaults: boolean, signal: AbortSignal, progress: (line: string) => void): Promise<string> {
  progress(`starting Tributary under wrangler dev to profile ${scenario.id}`);
  const server = await startServer("tributary", wranglerDefaults);
  try {
    const endpoints = (transport: TransportName): Record<ServerName, Endpoint> => ({
      tributary: { server: "tributary", url: server.url, transport: transports[transport], signal, processGroupId: server.processGroupId },
      baseline: { server: "baseline", url: "http://127.0.0.1:9", transport: transports[transport], signal }, // never called
    });
    const inspector = await connect(server.inspectorUrl, signal);
    try {
      let profile: Profile | undefined;
      const described = await createExecutor(settings, endpoints, progress).runOnce(scenario, "tributary", async (measure) => {
        await inspector.call("Profiler.enable");
        await inspector.call("Debugger.enable");
        await inspector.call("Profiler.setSamplingInterval", { interval: samplingIntervalMicroseconds });
        await inspector.call("Profiler.start");
        const run = await measure();
        profile = (await inspector.call<{ profile: Profile }>("Profiler.stop")).profile;
        return run;
      });
      if (!profile) return `${scenario.id}: ${described}`;
      const times = await selfTimes(inspector, profile);
      const total = (label: string) => times.filter((time) => time.label.startsWith(label)).reduce((sum, time) => sum + time.ms, 0);
      const [idle, unsampled] = [total("(idle)"), total(unsampledLabel)];
      const busy = times.reduce((sum, time) => sum + time.ms, 0) - idle - unsampled;
      const lines = times
        .filter((time) => !time.label.startsWith("(idle)") && time.label !== unsampledLabel)
        .slice(0, functionsShown)
        .map((time) => `${time.ms.toFixed(0).padStart(7)} ms ${((100 * time.ms) / busy).toFixed(1).padStart(5)}%  ${time.label}`);
      return [
        `${scenario.id}, Tributary: ${described}`,
        `Worker isolate busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms, unsampled ${unsampled.toFixed(0)} ms (gaps of more than ${unsampledGapIntervals} intervals); self time by function (bundled source line):`,
        ...lines,
      ].join("\n");
    } finally {
      inspector.close();
    }
  } finally {
    await server.stop();
  }
}
