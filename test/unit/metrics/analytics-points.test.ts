import { describe, expect, it } from "vitest";
import { partitionDataPoint, requestDataPoint } from "../../../src/metrics/analytics-points.ts";

describe("Analytics Engine data points (docs/metrics.md's schema)", () => {
  it("a request: indexed by route pattern; kind, method, route, status, error code, throttled token; count and milliseconds", () => {
    expect(requestDataPoint({ method: "POST", route: "/v1/topics/:topic/records", status: 429, durationSeconds: 0.0125, errorCode: "THROTTLING_QUOTA_EXCEEDED", throttledToken: "t1" })).toEqual({
      indexes: ["/v1/topics/:topic/records"],
      blobs: ["request", "POST", "/v1/topics/:topic/records", "429", "THROTTLING_QUOTA_EXCEEDED", "t1"],
      doubles: [1, 12.5],
    });
    expect(requestDataPoint({ method: "GET", route: "/v1/health", status: 200, durationSeconds: 0 }).blobs).toEqual(["request", "GET", "/v1/health", "200", "", ""]);
  });

  it("a partition's append group or fetch: indexed by topicId; kind, topicId, partition, region; records and bytes", () => {
    expect(partitionDataPoint({ kind: "append", topicId: "3f1c", partition: 2, region: "weur", records: 10, bytes: 900 })).toEqual({
      indexes: ["3f1c"],
      blobs: ["append", "3f1c", "2", "weur"],
      doubles: [10, 900],
    });
  });
});
