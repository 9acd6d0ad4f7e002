/**
 * The router counts throttled requests by token id (docs/metrics.md): a scoped token past its
 * request rate is refused with 429, and GET /v1/metrics, with the admin token, shows them under
 * the token's id — never its secret — and THROTTLING_QUOTA_EXCEEDED among the errors.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.ts";
import { createTopic, readResponse, uniqueTopic } from "../support/http.ts";
import { adminToken, allOn, createToken, securedEnv } from "../support/secured.ts";
import { parseExposition, sampleValue } from "./support/parse-exposition.ts";

describe("throttled requests", () => {
  it("are counted under the token's id", async () => {
    const topic = uniqueTopic("throttled");
    await createTopic(topic);
    const token = await createToken({ rules: [allOn("topic", topic)], quotas: { requestsPerSecond: 1 } });
    const app = createApp();
    const call = async (path: string, bearer: string) => {
      const ctx = createExecutionContext();
      const response = await readResponse(await app.request(`http://tributary.test${path}`, { headers: { authorization: `Bearer ${bearer}` } }, securedEnv, ctx));
      await waitOnExecutionContext(ctx);
      return response;
    };
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10 && !statuses.includes(429); attempt++) statuses.push((await call(`/v1/topics/${topic}`, token.token)).status);
    expect(statuses).toContain(429);
    const scraped = await call("/v1/metrics", adminToken);
    expect(scraped.status, scraped.text).toBe(200);
    expect(scraped.text).not.toContain(token.token);
    const families = parseExposition(scraped.text);
    expect(sampleValue(families, "tributary_router_throttled_requests_total", { token: token.id })).toBe(1);
    expect(sampleValue(families, "tributary_router_errors_total", { code: "THROTTLING_QUOTA_EXCEEDED" })).toBe(1);
    expect(sampleValue(families, "tributary_router_requests_total", { method: "GET", route: "/v1/topics/:topic", status: "429" })).toBe(1);
  });
});
