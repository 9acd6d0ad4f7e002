/**
 * Tributary's Worker on workerd through Miniflare, on a loopback port: the one code path of
 * `tributary serve` (state under a directory, kept across restarts) and `startTributary()`
 * (state in a temporary directory of its own, gone after `dispose`).
 *
 *   tributaryWorker(vars) ──► convertV4MiniflareOptions ──► new Miniflare (+ persistence root)
 *     ──► ready: the URL workerd listens on ──► { url, dispose }
 *
 * One Miniflare runs one workerd process: all of Tributary's Durable Objects (the controller,
 * every partition replica of every "region", groups, quotas) live in it, and R2 is files on
 * disk beside their SQLite databases. dispose() ends that process.
 */
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { parseRegions } from "../topics/placement.ts";
import { tributaryWorker } from "./worker-config.ts";

export interface RunOptions {
  /** Where Durable Object SQLite databases and R2 objects live; undefined: Miniflare's temporary directory, removed on dispose. */
  persistPath?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port the kernel picks. */
  port?: number;
  /** Variables and secrets beyond wrangler.toml's, which they override. */
  vars?: Record<string, string>;
  /** The regions replicas are placed in (wrangler.toml's REGIONS otherwise): names only, all in this one process. */
  regions?: readonly string[];
  /** Miniflare's own messages (not the Worker's console, which workerd prints). Default: none. */
  logLevel?: "none" | "warn" | "info";
  /**
   * The caller handles SIGINT, SIGTERM and SIGHUP itself (`tributary serve`): Miniflare's exit
   * hook, which disposes and exits 130/143/129, is removed as soon as Miniflare installs it.
   */
  ownSignals?: boolean;
}

export interface RunningWorker {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  miniflare: Miniflare;
  dispose(): Promise<void>;
}

const logLevels = { none: LogLevel.NONE, warn: LogLevel.WARN, info: LogLevel.INFO } as const;

export async function runTributaryWorker(options: RunOptions = {}): Promise<RunningWorker> {
  const vars = { ...options.vars };
  if (options.regions !== undefined) vars.REGIONS = parseRegions(options.regions.join(",")).join(",");
  const converted = convertV4MiniflareOptions({
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    log: new Log(logLevels[options.logLevel ?? "none"]),
    // A placeholder Request.cf instead of one fetched from Cloudflare: no network at startup (air-gapped sites).
    cf: false,
    workers: [tributaryWorker({ vars })],
  });
  const listenersBefore = signalListeners();
  const miniflare = new Miniflare({
    ...converted,
    ...(options.persistPath === undefined ? {} : { resourcePersistencePath: options.persistPath }),
  });
  // Synchronously after the constructor: no signal can reach Miniflare's hook in between.
  if (options.ownSignals === true) removeListenersSince(listenersBefore);
  let url: URL;
  try {
    url = await miniflare.ready;
  } catch (error) {
    await miniflare.dispose().catch(() => {});
    throw error;
  }
  let disposing: Promise<void> | undefined;
  return {
    url: url.origin,
    miniflare,
    dispose: () => (disposing ??= miniflare.dispose()),
  };
}

const hookedSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function signalListeners(): Map<string, Function[]> {
  return new Map(hookedSignals.map((name) => [name, process.listeners(name)]));
}

/** Removes the signal listeners added since `before` (Miniflare's exit hook; the process has no other). */
function removeListenersSince(before: Map<string, Function[]>): void {
  for (const name of hookedSignals) {
    for (const listener of process.listeners(name)) {
      if (!before.get(name)!.includes(listener)) process.removeListener(name, listener as (...args: unknown[]) => void);
    }
  }
}
