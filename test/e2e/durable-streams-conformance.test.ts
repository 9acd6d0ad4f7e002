/**
 * The Durable Streams protocol's own conformance suite (`@durable-streams/server-conformance-tests`,
 * pinned in package.json) against a real `wrangler dev`, at the protocol's base path `/ds`
 * (docs/durable-streams.md). The long-poll wait is shortened through the Worker's
 * DURABLE_STREAMS_LONG_POLL_MS so the suite's waits for a 204 stay short; the suite is told the
 * same bound. Its tests run five at a time (vitest's `describe.concurrent`, default
 * maxConcurrency): each works on streams of its own, and most of the suite's time is its own
 * waits (TTL expiry, property tests bounded at 10 s), which then overlap — about 90 s instead
 * of 150 s here. Tests the Worker cannot pass would be listed in docs/durable-streams.md.
 */
import { runConformanceTests } from "@durable-streams/server-conformance-tests";
import { afterAll, beforeAll, describe } from "vitest";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const longPollMs = 1_500;
const config = { baseUrl: "", longPollTimeoutMs: longPollMs };

describe.concurrent("Durable Streams conformance against wrangler dev", () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { DURABLE_STREAMS_LONG_POLL_MS: String(longPollMs) } });
    config.baseUrl = `${server.url}/ds`;
  });

  afterAll(async () => {
    await server?.stop();
  });

  runConformanceTests(config);
});
