import { metricsThrottledTokensMax, requestDurationBucketsSeconds } from "../limits.ts";
import { family, type Labels, type MetricFamily } from "./exposition.ts";
import { Histogram, labelKey } from "./histogram.ts";
import { metricNames } from "./names.ts";

/** What the router saw of one request, for its counters. */
export interface RequestObservation {
  method: string;
  /** The route's pattern as the app declares it (`/v1/topics/:topic`), never the raw path: bounded cardinality. */
  route: string;
  status: number;
  durationSeconds: number;
  /** The error's code when the answer is an error body. */
  errorCode?: string;
  /** Who was throttled (429): a scoped token's id (a minted token's parent), or "admin"/"open"; never a secret. */
  throttledToken?: string;
}

/**
 * The router's counters, kept per isolate in memory (a Worker isolate has no storage of its
 * own): requests by route and status, their latency, throttled requests by token, errors by
 * code. Each scrape shows the isolate that answered it; the counters start over when the
 * isolate does, which Prometheus's rate() and increase() treat as a counter reset. Pure.
 */
export class RouterCounters {
  readonly #requests = new Map<string, { labels: Labels; value: number }>();
  readonly #throttled = new Map<string, number>();
  readonly #errors = new Map<string, number>();
  readonly #durations = new Histogram(requestDurationBucketsSeconds);
  /** The histogram's key of each method and route seen (a route is a pattern: few). */
  readonly #durationKeys = new Map<string, string>();

  observe(request: RequestObservation): void {
    // Keyed by a plain string on the hot path; labelKey only for a series seen the first time.
    const routeKey = `${request.method} ${request.route}`;
    const key = `${routeKey} ${request.status}`;
    const entry = this.#requests.get(key);
    if (entry) entry.value++;
    else this.#requests.set(key, { labels: { method: request.method, route: request.route, status: String(request.status) }, value: 1 });
    let durationKey = this.#durationKeys.get(routeKey);
    if (durationKey === undefined) {
      durationKey = labelKey({ method: request.method, route: request.route });
      this.#durationKeys.set(routeKey, durationKey);
    }
    this.#durations.observe({ method: request.method, route: request.route }, request.durationSeconds, durationKey);
    if (request.errorCode !== undefined) this.#errors.set(request.errorCode, (this.#errors.get(request.errorCode) ?? 0) + 1);
    if (request.throttledToken !== undefined) {
      // Bounded: past the bound, further tokens share one series rather than growing the map.
      const token = this.#throttled.has(request.throttledToken) || this.#throttled.size < metricsThrottledTokensMax ? request.throttledToken : "other";
      this.#throttled.set(token, (this.#throttled.get(token) ?? 0) + 1);
    }
  }

  families(): MetricFamily[] {
    const perIsolate = "Kept in memory by the router isolate that answered this scrape; starts over when that isolate does.";
    return [
      family(metricNames.routerRequests, "counter", `HTTP requests answered, by method, route pattern and status. ${perIsolate}`, [...this.#requests.values()]),
      {
        name: metricNames.routerRequestDuration,
        type: "histogram",
        help: `Seconds from a request's arrival to its answer's headers, by method and route pattern (Workers clocks advance only across I/O). ${perIsolate}`,
        samples: this.#durations.samples(metricNames.routerRequestDuration),
      },
      family(
        metricNames.routerThrottledRequests,
        "counter",
        `Requests refused with 429 THROTTLING_QUOTA_EXCEEDED, by scoped token id (a minted write or read token under the token that minted it; "admin" or "open" for those credentials; "other" past ${metricsThrottledTokensMax} tokens). ${perIsolate}`,
        [...this.#throttled].map(([token, value]) => ({ labels: { token }, value })),
      ),
      family(
        metricNames.routerErrors,
        "counter",
        `Error answers, by error code (docs/api.md, Errors). ${perIsolate}`,
        [...this.#errors].map(([code, value]) => ({ labels: { code }, value })),
      ),
    ];
  }
}
