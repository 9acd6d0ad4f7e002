/**
 * `tributary/testing`: a real Tributary for a test suite — the built Worker on workerd through
 * Miniflare, on its own loopback port, its state in a temporary directory of its own (or under
 * `persist`), gone after `dispose()`. Several run at once without seeing each other's topics.
 * Works from vitest, node:test and jest (ESM); docs/testing.md.
 *
 *   const t = await startTributary();
 *   await t.client.admin().createTopic({ name: "orders", partitions: 1 });
 *   await t.fetch("/v1/topics");   // a path, resolved against t.url
 *   await t.dispose();
 */
import { Tributary } from "../client/index.ts";
import { runTributaryWorker } from "./run-worker.ts";

export { tributaryWorker, type TributaryWorkerOptions, type TributaryWorkerSettings } from "./worker-config.ts";

export interface StartTributaryOptions {
  /** false (default): state in a fresh temporary directory, removed on dispose. A directory: state kept there, as `tributary serve --data`. */
  persist?: false | string;
  /** Worker variables and secrets beyond wrangler.toml's, e.g. `{ TRIBUTARY_ADMIN_TOKEN: "…" }` (the client then uses it). */
  vars?: Record<string, string>;
  /** Regions replicas are placed in (Durable Object location hints; here only names): at least the largest replication factor used. */
  regions?: readonly string[];
}

export interface StartedTributary {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The global fetch, with a path (`"/v1/topics"`) resolved against `url`. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** A client for `url`, with the admin token when `vars` sets one. */
  client: Tributary;
  /** Ends workerd and removes in-memory state; afterwards nothing answers at `url`. Idempotent. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startTributary(options: StartTributaryOptions = {}): Promise<StartedTributary> {
  const { persist = false, vars, regions } = options;
  if (persist !== false && (typeof persist !== "string" || persist === "")) throw new TypeError("persist is false or a directory");
  const worker = await runTributaryWorker({ persistPath: persist === false ? undefined : persist, vars, regions });
  const { url } = worker;
  const token = vars?.TRIBUTARY_ADMIN_TOKEN;
  return {
    url,
    fetch: (input, init) => fetch(typeof input === "string" ? new URL(input, url) : input, init),
    client: new Tributary({ url, ...(token === undefined ? {} : { token }) }),
    dispose: worker.dispose,
    [Symbol.asyncDispose]: worker.dispose,
  };
}
