/**
 * Fetch's reads over node:http (src/gateway/upstream-read.ts) against a real node:http server on
 * 127.0.0.1: the server gets the path, query and headers (token, accept, no compression); the
 * body comes back as the pieces the socket delivered, whole and in order, with its headers;
 * consecutive reads share one kept-alive connection, and a read whose reused connection the
 * server had closed is sent once more; an error answer is its TributaryError, a compressed
 * answer is decompressed, a refused connection or a body cut off is NETWORK_EXCEPTION, no
 * answer in time REQUEST_TIMED_OUT, and a caller's abort stays its abort and closes the request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Secret } from "../../../src/client/secret.ts";
import { path } from "../../../src/client/transport.ts";
import { TributaryError } from "../../../src/errors.ts";
import { recordBatchReadsOverHttp, type RecordsRequest } from "../../../src/gateway/upstream-read.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { localHttpServers } from "./support/local-http.ts";

const { servers, listen } = localHttpServers();

async function serve(answer: (request: IncomingMessage, response: ServerResponse, index: number) => void) {
  const received: { url: string; headers: IncomingMessage["headers"]; port: number }[] = [];
  const closed: boolean[] = [];
  const { url } = await listen((request, response) => {
    const index = received.push({ url: request.url!, headers: request.headers, port: request.socket.remotePort! }) - 1;
    closed.push(false);
    response.on("close", () => (closed[index] = true));
    answer(request, response, index);
  });
  return { url, received, closed };
}

const reader = (url: string, requestTimeoutMs = 10_000) => recordBatchReadsOverHttp({ baseUrl: url, server: url, token: new Secret("tok-1"), requestTimeoutMs });
const request = (extra: Partial<RecordsRequest> = {}): RecordsRequest => ({ path: path("topics", "t 1", "partitions", 0, "records"), query: { offset: 5, maxBytes: 1_000 }, waitMs: 0, ...extra });
const body = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256);
const failure = (pending: Promise<unknown>) => pending.then(() => expect.fail("the read must fail"), (error: unknown) => error);

describe("Fetch's reads over node:http", () => {
  it("sends the path, query and headers, and hands back the body as the pieces the socket delivered, with its headers", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": recordBatchContentType, "tributary-next-offset": "17" });
      response.end(body);
    });
    const read = await reader(server.url)(request());
    expect(server.received[0]!.url).toBe("/v1/topics/t%201/partitions/0/records?offset=5&maxBytes=1000");
    expect(server.received[0]!.headers).toMatchObject({ authorization: "Bearer tok-1", accept: recordBatchContentType, "accept-encoding": "identity" });
    expect(read.chunks.length).toBeGreaterThan(1); // 300 kB do not come in one read of the socket
    expect(read.bytes).toBe(body.length);
    expect(new Uint8Array(Buffer.concat(read.chunks))).toEqual(body);
    expect(read.header("tributary-next-offset")).toBe("17");
    expect(read.header("tributary-high-watermark")).toBeUndefined();
  });

  it("reads under a base URL's path", async () => {
    const server = await serve((_, response) => response.end());
    await reader(`${server.url}/prefix`)(request({ query: {} }));
    expect(server.received[0]!.url).toBe("/prefix/v1/topics/t%201/partitions/0/records");
  });

  it("reuses one kept-alive connection, and sends a read once more when the server had closed the one it reused", async () => {
    const server = await serve((incoming, response, index) => {
      if (index === 2) incoming.socket.destroy(); // the server drops the kept-alive connection as the third read arrives
      else response.end(body.subarray(0, 10));
    });
    const read = reader(server.url);
    await read(request());
    await read(request());
    const third = await read(request());
    expect(third.bytes).toBe(10);
    expect(server.received).toHaveLength(4);
    expect(new Set(server.received.slice(0, 3).map((got) => got.port)).size).toBe(1);
    expect(server.received[3]!.port).not.toBe(server.received[0]!.port);
  });

  it("turns an error answer into its TributaryError", async () => {
    const server = await serve((_, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message: "no topic t 1" } }));
    });
    const error = await failure(reader(server.url)(request()));
    expect(error).toBeInstanceOf(TributaryError);
    expect((error as TributaryError).code).toBe("UNKNOWN_TOPIC_OR_PARTITION");
  });

  it("decompresses an answer a proxy compressed", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-encoding": "gzip" });
      response.end(gzipSync(body));
    });
    const read = await reader(server.url)(request());
    expect(new Uint8Array(Buffer.concat(read.chunks))).toEqual(body);
    expect(read.bytes).toBe(body.length);
  });

  it("turns a refused connection and a body cut off into NETWORK_EXCEPTION", async () => {
    const cut = await serve((_, response) => {
      response.writeHead(200, { "content-length": "1000" });
      response.write(body.subarray(0, 10), () => response.destroy());
    });
    expect(((await failure(reader(cut.url)(request()))) as TributaryError).code).toBe("NETWORK_EXCEPTION");
    const refused = await serve(() => {});
    servers.splice(-1)[0]!.close();
    expect(((await failure(reader(refused.url)(request()))) as TributaryError).code).toBe("NETWORK_EXCEPTION");
  });

  it("gives up at the request timeout plus the wait with REQUEST_TIMED_OUT", async () => {
    const server = await serve(() => {});
    const error = await failure(reader(server.url, 200)(request({ waitMs: 100 })));
    expect((error as TributaryError).code).toBe("REQUEST_TIMED_OUT");
  });

  it("closes the request when its caller aborts it, answering the caller's reason", async () => {
    const server = await serve(() => {});
    const caller = new AbortController();
    const pending = failure(reader(server.url)(request({ signal: caller.signal })));
    await expect.poll(() => server.received.length, { timeout: 15_000, interval: 5 }).toBe(1);
    const reason = new Error("the client went away");
    caller.abort(reason);
    expect(await pending).toBe(reason);
    await expect.poll(() => server.closed[0], { timeout: 15_000, interval: 5 }).toBe(true);
  });
});
