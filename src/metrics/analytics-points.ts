import type { RequestObservation } from "./router-counters.ts";

/**
 * Data points for a Workers Analytics Engine dataset bound as `METRICS` (docs/metrics.md,
 * "Analytics Engine"): written only when the binding exists; unbound, nothing is written and
 * nothing else changes. Pure: the callers write them.
 *
 * | point | index1 | blob1 | blob2 … | double1, double2 |
 * |---|---|---|---|---|
 * | a request the router answered | route pattern | "request" | method, route, status, error code or "", throttled token id or "" | 1, duration in ms |
 * | an append group a leader wrote | topicId | "append" | topicId, partition, region | records, bytes |
 * | a fetch a replica served | topicId | "fetch" | topicId, partition, region | records, bytes |
 */
export interface DataPoint {
  indexes: string[];
  blobs: string[];
  doubles: number[];
}

export function requestDataPoint(request: RequestObservation): DataPoint {
  return {
    indexes: [request.route],
    blobs: ["request", request.method, request.route, String(request.status), request.errorCode ?? "", request.throttledToken ?? ""],
    doubles: [1, request.durationSeconds * 1000],
  };
}

export interface PartitionTrafficPoint {
  kind: "append" | "fetch";
  topicId: string;
  partition: number;
  region: string;
  records: number;
  bytes: number;
}

export function partitionDataPoint(traffic: PartitionTrafficPoint): DataPoint {
  return {
    indexes: [traffic.topicId],
    blobs: [traffic.kind, traffic.topicId, String(traffic.partition), traffic.region],
    doubles: [traffic.records, traffic.bytes],
  };
}
