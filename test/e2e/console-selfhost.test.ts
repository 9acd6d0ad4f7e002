/**
 * The console without Cloudflare: `tributary serve` and `tributary/testing` run the Worker on
 * Miniflare from dist/ (scripts/build-worker.ts), and serve the console's files at `/` as
 * `wrangler dev` does — no token for them, `/v1` still the API's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTributaryWorker, type RunningWorker } from "../../src/testing/run-worker.ts";

describe("the console on the Miniflare runner", () => {
  const adminToken = `console-selfhost-${crypto.randomUUID()}`;
  let worker: RunningWorker;

  beforeAll(async () => {
    worker = await runTributaryWorker({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
  });

  afterAll(async () => {
    await worker?.dispose();
  });

  it("serves the console's page and script without a token, and the API only with one", async () => {
    const index = await fetch(`${worker.url}/`);
    const html = await index.text();
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toContain("text/html");
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const scriptResponse = await fetch(`${worker.url}${script}`);
    expect(scriptResponse.status).toBe(200);
    expect(scriptResponse.headers.get("content-type")).toContain("javascript");
    await scriptResponse.body?.cancel();
    const refused = await fetch(`${worker.url}/v1/topics`);
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const allowed = await fetch(`${worker.url}/v1/topics`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(await allowed.json()).toEqual({ topics: [] });
  });
});
