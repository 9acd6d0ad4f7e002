/**
 * An HTTP proxy between `tributary gateway` and the server, for tests of ordering: it passes
 * every request through as it is, but holds back the record-batch POSTs (binary produce) that
 * `holdBack` picks for `delayMs` before passing them on. Picking a connection's first produce
 * makes the requests after it reach the server first if anything lets them overtake (the
 * gateway handling a connection's requests concurrently did): ordering is then tested in every
 * run, not sampled.
 *
 *   const proxy = await startDelayingProxy(server.url, { delayMs: 300, holdBack: (batch) => batch.baseSequence === 0 });
 *   startGateway(proxy.url) …  proxy.held  …  await proxy.close();
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { readBatchHeader, type BatchHeader } from "../../../src/protocol/record-batch.ts";

export interface DelayingProxy {
  url: string;
  /** How many POSTs were held back so far. */
  readonly held: number;
  close(): Promise<void>;
}

export interface DelayingProxyOptions {
  delayMs: number;
  /** Whether to hold back a produce, by its path and its first batch's header. */
  holdBack(batch: BatchHeader, path: string): boolean;
}

export async function startDelayingProxy(target: string, options: DelayingProxyOptions): Promise<DelayingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let held = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const hold = request.method === "POST" && request.headers["content-type"] === recordBatchContentType && body.length > 0 && options.holdBack(readBatchHeader(new Uint8Array(body)), request.url ?? "");
      if (hold) held += 1;
      setTimeout(() => pass(request, body, response), hold ? options.delayMs : 0);
    });
  });
  const pass = (request: http.IncomingMessage, body: Buffer, response: http.ServerResponse) => {
    const outgoing = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host }, agent },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on("error", () => response.destroy());
    response.on("close", () => outgoing.destroy());
    outgoing.end(body);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get held() {
      return held;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
