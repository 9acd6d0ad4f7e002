/**
 * GET /v1/metrics against a real `wrangler dev` with an admin token: Prometheus's own linter,
 * `promtool check metrics` (Debian's `prometheus` package; .ci/run installs it), finds nothing
 * in the exposition, and a parser reads back the numbers the API shows — high watermarks, log
 * starts, a group's committed offset and lag. Without a token: 401.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExposition, sampleValue } from "../workers/metrics/support/parse-exposition.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "metrics-admin-s3cret";

describe("GET /v1/metrics on wrangler dev", () => {
  let server: DevServer;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: (response.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    expect(spawnSync("promtool", ["--version"]).status, "promtool is installed (apt-get install prometheus)").toBe(0);
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    expect((await call("POST", "/v1/topics", { name: "orders", partitions: 2 })).status).toBe(201);
    expect((await call("POST", "/v1/topics/orders/records", { records: [0, 1, 2, 3].map((index) => ({ value: `v${index}`, partition: index % 2 })) })).status).toBe(200);
    expect((await call("POST", "/v1/topics/orders/records", { records: [{ value: "late", partition: 0 }] })).status).toBe(200);
    expect((await call("GET", "/v1/topics/orders/partitions/0/records?offset=0")).status).toBe(200);
    expect((await call("GET", "/v1/topics/nothing-here")).status).toBe(404);
    const joined = await call("POST", "/v1/groups/billing/members", { topics: ["orders"], sessionTimeoutMs: 1_800_000 });
    expect(joined.status, joined.text).toBe(201);
    const { memberId, memberEpoch } = joined.body;
    const committed = await call("POST", "/v1/groups/billing/offsets", { memberId, memberEpoch, offsets: [{ topic: "orders", partition: 0, offset: 1 }, { topic: "orders", partition: 1, offset: 2 }] });
    expect(committed.status, committed.text).toBe(204);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a scrape without a token", async () => {
    const response = await fetch(`${server.url}/v1/metrics`);
    expect(response.status).toBe(401);
  });

  it("passes promtool check metrics with no findings, and reads back the values the API shows", async () => {
    const scraped = await call("GET", "/v1/metrics");
    expect(scraped.status, scraped.text).toBe(200);
    const checked = spawnSync("promtool", ["check", "metrics"], { input: scraped.text, encoding: "utf8" });
    expect({ status: checked.status, stdout: checked.stdout, stderr: checked.stderr }).toEqual({ status: 0, stdout: "", stderr: "" });

    const families = parseExposition(scraped.text);
    const topic = (await call("GET", "/v1/topics/orders")).body as { partitions: { partition: number; highWatermark: number; logStartOffset: number }[] };
    expect(topic.partitions.map((partition) => partition.highWatermark)).toEqual([3, 2]);
    for (const { partition, highWatermark, logStartOffset } of topic.partitions) {
      const labels = { topic: "orders", partition: String(partition) };
      expect(sampleValue(families, "tributary_partition_high_watermark", labels)).toBe(highWatermark);
      expect(sampleValue(families, "tributary_partition_log_start_offset", labels)).toBe(logStartOffset);
      expect(sampleValue(families, "tributary_partition_records_appended_total", labels)).toBe(highWatermark);
    }
    const offsets = (await call("GET", "/v1/groups/billing/offsets")).body.offsets as { topic: string; partition: number; offset: number; lag: number }[];
    expect(offsets.map(({ partition, lag }) => ({ partition, lag }))).toEqual([{ partition: 0, lag: 2 }, { partition: 1, lag: 0 }]);
    for (const { topic: name, partition, offset, lag } of offsets) {
      const labels = { group: "billing", topic: name, partition: String(partition) };
      expect(sampleValue(families, "tributary_group_lag", labels)).toBe(lag);
      expect(sampleValue(families, "tributary_group_committed_offset", labels)).toBe(offset);
    }
    expect(sampleValue(families, "tributary_router_errors_total", { code: "UNKNOWN_TOPIC_OR_PARTITION" })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(families, "tributary_router_request_duration_seconds_count", { method: "POST", route: "/v1/topics/:topic/records" })).toBeGreaterThanOrEqual(2);

    const twin = await call("GET", "/v1/metrics", undefined, { accept: "application/json" });
    expect(twin.status).toBe(200);
    expect(twin.body.generatedAt).toBeTypeOf("number");
    expect(twin.body.history.partitions.map((entry: { partition: number }) => entry.partition).sort()).toEqual([0, 1]);
  });
});
