/**
 * What one gateway process counts about its clients, for `tributary gateway --metrics`
 * (Prometheus's text format, docs/gateway.md): connections, requests by API, requests that
 * carried bytes after their last field (read as Kafka's broker reads them: ignored), and
 * connections closed for an error. Counters only grow; the process keeps them until it exits.
 */
import { family, type MetricFamily } from "../metrics/exposition.ts";

export class GatewayStats {
  connectionsOpened = 0;
  connectionsClosedForErrors = 0;
  readonly #requests = new Map<string, number>();
  readonly #trailing = new Map<string, number>();

  /** One request read, of the API `api` (its name), with `trailingBytes` after its fields. */
  request(api: string, trailingBytes: number): void {
    this.#requests.set(api, (this.#requests.get(api) ?? 0) + 1);
    if (trailingBytes > 0) this.#trailing.set(api, (this.#trailing.get(api) ?? 0) + 1);
  }

  /** Requests of `api` read so far. */
  requests(api: string): number {
    return this.#requests.get(api) ?? 0;
  }

  /** Requests of `api` that carried bytes after their fields. */
  requestsWithTrailingBytes(api: string): number {
    return this.#trailing.get(api) ?? 0;
  }

  families(connectionsOpen: number): MetricFamily[] {
    const byApi = (counts: Map<string, number>) => [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([api, value]) => ({ labels: { api }, value }));
    return [
      family("tributary_gateway_connections", "gauge", "Client connections open.", [{ labels: {}, value: connectionsOpen }]),
      family("tributary_gateway_connections_opened_total", "counter", "Client connections accepted since the gateway started.", [{ labels: {}, value: this.connectionsOpened }]),
      family(
        "tributary_gateway_connections_failed_total",
        "counter",
        "Client connections closed for an error (a bad frame, an unsupported request, a failed handler), each also one line on stderr.",
        [{ labels: {}, value: this.connectionsClosedForErrors }],
      ),
      family("tributary_gateway_requests_total", "counter", "Kafka requests read, by API.", byApi(this.#requests)),
      family(
        "tributary_gateway_requests_trailing_bytes_total",
        "counter",
        "Kafka requests, by API, with bytes after their last field (ignored, as Kafka's broker does).",
        byApi(this.#trailing),
      ),
    ];
  }
}
