/**
 * The optional METRICS Analytics Engine binding (docs/metrics.md): bound, the router writes one
 * data point per request in the documented schema; unbound (wrangler.toml binds none), the
 * same requests get the same answers and nothing is written. Local workerd's own dataset
 * binding forwards nowhere, so the bound case records the points the router hands the
 * binding's writeDataPoint.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/router/app.ts";
import { createTopic, readResponse, uniqueTopic } from "../support/http.ts";

async function call(app: ReturnType<typeof createApp>, path: string, bindings: Env) {
  const ctx = createExecutionContext();
  const response = await readResponse(await app.request(`http://tributary.test${path}`, {}, bindings, ctx));
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: response.body };
}

describe("the METRICS binding", () => {
  it("is absent from the test Worker, as from wrangler.toml", () => {
    expect(env.METRICS).toBeUndefined();
  });

  it("bound: one data point per request (route pattern, status, error code, duration); unbound: the same answers", async () => {
    const name = uniqueTopic("analytics");
    await createTopic(name);
    const points: AnalyticsEngineDataPoint[] = [];
    const recording = { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void points.push(point!) } as AnalyticsEngineDataset;
    const paths = [`/v1/topics/${name}`, `/v1/topics/${uniqueTopic("absent")}`];
    const bound = [];
    const unbound = [];
    for (const path of paths) {
      bound.push(await call(createApp(), path, { ...env, METRICS: recording }));
      unbound.push(await call(createApp(), path, env));
    }
    expect(bound.map(({ status }) => status)).toEqual([200, 404]);
    expect(unbound).toEqual(bound);
    expect(points.map(({ indexes, blobs, doubles }) => ({ indexes, blobs, count: doubles?.[0], durationIsNumber: typeof doubles?.[1] === "number" }))).toEqual([
      { indexes: ["/v1/topics/:topic"], blobs: ["request", "GET", "/v1/topics/:topic", "200", "", ""], count: 1, durationIsNumber: true },
      { indexes: ["/v1/topics/:topic"], blobs: ["request", "GET", "/v1/topics/:topic", "404", "UNKNOWN_TOPIC_OR_PARTITION", ""], count: 1, durationIsNumber: true },
    ]);
  });
});
