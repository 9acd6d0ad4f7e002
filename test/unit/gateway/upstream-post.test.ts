/**
 * The gateway's record-batch POSTs over node:http (src/gateway/upstream-post.ts), against a
 * real node:http server on 127.0.0.1, through the client's Transport as the gateway uses it:
 * the server gets the method, path, query, headers and exact bytes; answers come back with
 * their status, headers and body (a JSON answer, an error body as its TributaryError, a 204
 * without a body); every other request goes to the fallback `fetch`; a refused connection is
 * NETWORK_EXCEPTION, an answer that never comes REQUEST_TIMED_OUT, and a caller's abort closes
 * the request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Secret } from "../../../src/client/secret.ts";
import { Transport, path, type FetchFunction } from "../../../src/client/transport.ts";
import { TributaryError } from "../../../src/errors.ts";
import { recordBatchPostOverHttp } from "../../../src/gateway/upstream-post.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { localHttpServers } from "./support/local-http.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

const { servers, listen } = localHttpServers();

async function serve(answer: (request: Received, response: ServerResponse) => void) {
  const received: Received[] = [];
  const closed: boolean[] = [];
  const { url } = await listen((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = { method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks) };
      received.push(got);
      const index = closed.push(false) - 1;
      response.on("close", () => (closed[index] = true));
      answer(got, response);
    });
  });
  return { url, received, closed };
}

function transport(url: string, fallback: FetchFunction, requestTimeoutMs = 10_000) {
  return new Transport({ baseUrl: url, server: url, token: new Secret("tok-1"), fetch: recordBatchPostOverHttp(fallback), requestTimeoutMs });
}

const refuse: FetchFunction = () => Promise.reject(new Error("the fallback must not be called"));
const batch = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 7) % 256);
const post = (acks = "all") => ({ method: "POST" as const, path: path("topics", "t 1", "partitions", 0, "records"), query: { acks }, bytes: batch, contentType: recordBatchContentType });

describe("the gateway's record-batch POST over node:http", () => {
  it("sends the method, path, query, headers and exact bytes, and hands back the JSON answer", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "x-answer": "yes" });
      response.end(JSON.stringify({ partition: 0, baseOffset: 7, lastOffset: 9 }));
    });
    const answer = await transport(server.url, refuse).json(post());
    expect(answer).toEqual({ partition: 0, baseOffset: 7, lastOffset: 9 });
    expect(server.received).toHaveLength(1);
    const [got] = server.received;
    expect(got!.method).toBe("POST");
    expect(got!.url).toBe("/v1/topics/t%201/partitions/0/records?acks=all");
    expect(got!.headers["content-type"]).toBe(recordBatchContentType);
    expect(got!.headers["content-length"]).toBe(String(batch.length));
    expect(got!.headers.authorization).toBe("Bearer tok-1");
    expect(new Uint8Array(got!.body)).toEqual(batch);
  });

  it("reuses one kept-alive connection for consecutive POSTs", async () => {
    const ports = new Set<number>();
    const server = await serve((_, response) => response.end("{}"));
    servers[0]!.on("connection", (socket) => ports.add(socket.remotePort!));
    const upstream = transport(server.url, refuse);
    for (let i = 0; i < 5; i++) await upstream.json(post());
    expect(server.received).toHaveLength(5);
    expect(ports.size).toBe(1);
  });

  it("hands back an error answer's status, headers and body (the Transport's TributaryError)", async () => {
    const server = await serve((_, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "no topic t 1" } }));
    });
    const failure = await transport(server.url, refuse).json(post()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TributaryError);
    expect((failure as TributaryError).code).toBe("NOT_FOUND");
    expect((failure as TributaryError).message).toContain("no topic t 1");
  });

  it("answers a 204 without a body (acks=0)", async () => {
    const server = await serve((_, response) => {
      response.writeHead(204);
      response.end();
    });
    const fetch = recordBatchPostOverHttp(refuse);
    const response = await fetch(new Request(`${server.url}/v1/topics/t/partitions/0/records?acks=0`, { method: "POST", headers: { "content-type": recordBatchContentType }, body: batch }));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(await transport(server.url, refuse).json(post("0"))).toBeUndefined();
  });

  it("leaves every other request to the fallback fetch", async () => {
    const seen: string[] = [];
    const fallback: FetchFunction = async (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get("content-type")}`);
      return Response.json({ ok: true });
    };
    const upstream = transport("http://127.0.0.1:9", fallback);
    await upstream.json({ method: "GET", path: path("topics") });
    await upstream.json({ method: "POST", path: path("topics", "t", "records"), json: { records: [] } });
    expect(seen).toEqual(["GET /v1/topics null", "POST /v1/topics/t/records application/json"]);
  });

  it("turns a refused connection into NETWORK_EXCEPTION", async () => {
    const server = await serve(() => {});
    const url = server.url;
    servers[0]!.close();
    await new Promise((resolve) => servers.splice(0)[0]!.once("close", resolve));
    const failure = await transport(url, refuse).json(post()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TributaryError);
    expect((failure as TributaryError).code).toBe("NETWORK_EXCEPTION");
  });

  it("gives up at the request timeout with REQUEST_TIMED_OUT", async () => {
    const server = await serve(() => {});
    const failure = await transport(server.url, refuse, 300).json(post()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TributaryError);
    expect((failure as TributaryError).code).toBe("REQUEST_TIMED_OUT");
  });

  it("closes the request when its caller aborts it", async () => {
    const server = await serve(() => {});
    const caller = new AbortController();
    const pending = transport(server.url, refuse).json({ ...post(), signal: caller.signal }).catch((error: unknown) => error);
    await expect.poll(() => server.received.length, { timeout: 15_000, interval: 5 }).toBe(1);
    const reason = new Error("the caller went away");
    caller.abort(reason);
    expect(await pending).toBe(reason);
    await expect.poll(() => server.closed[0], { timeout: 15_000, interval: 5 }).toBe(true);
  });
});
