/**
 * `tributary gateway --metrics HOST:PORT`: the gateway's counters (gateway-stats.ts) over HTTP
 * at `GET /metrics`, in Prometheus's text format 0.0.4, for a scraper beside the gateway. Only
 * that path is served; nothing there needs a token (it says how many requests of each API came,
 * never who sent them or what they held).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expositionContentType, formatExposition } from "../metrics/exposition.ts";
import type { Gateway, HostPort } from "./server.ts";

export interface MetricsListener {
  readonly address: HostPort;
  close(): Promise<void>;
}

export async function serveGatewayMetrics(gateway: Gateway, listen: HostPort): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://gateway").pathname;
    if (path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("only GET /metrics is served here\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("GET /metrics\n");
      return;
    }
    const body = formatExposition(gateway.stats.families(gateway.connections));
    response.writeHead(200, { "content-type": expositionContentType }).end(request.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: listen.host, port: bound.port },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
