/**
 * The gateway's Produce writes to Tributary over node:http (kept-alive connections shared by
 * every session) instead of `fetch`: a binary produce is one small POST whose answer is a few bytes of JSON,
 * and undici's fetch spends more of the gateway's CPU on its web streams (the body read as a
 * stream, the answer through a ReadableStream) than the gateway spends on the Kafka request
 * itself (in a profile of kafkajs's produce through the gateway, undici and web streams took
 * 5 times the gateway's own code). Everything else (long polls, streamed answers, JSON calls)
 * keeps `fetch`. The answer is read whole before it is handed on (a few bytes of JSON, or an
 * error body).
 */
import http from "node:http";
import https from "node:https";
import { recordBatchContentType } from "../protocol/content-types.ts";
import type { FetchFunction } from "../client/transport.ts";
import { gatewayUpstreamIdleMs } from "../limits.ts";

/** Answers that must not have a body (the Response constructor refuses one). */
const nullBodyStatus = new Set([101, 103, 204, 205, 304]);

/** Shared by every session and by Fetch's reads (upstream-read.ts): they all talk to the one server the gateway fronts. */
export const upstreamAgents = {
  "http:": new http.Agent({ keepAlive: true, timeout: gatewayUpstreamIdleMs }),
  "https:": new https.Agent({ keepAlive: true, timeout: gatewayUpstreamIdleMs }),
};

/** A node:http answer, read whole, as a fetch Response (no body where the status allows none). */
export function responseOf(status: number, headers: http.IncomingHttpHeaders, chunks: readonly Buffer[], statusText?: string): Response {
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
  return new Response(nullBodyStatus.has(status) ? null : Buffer.concat(chunks), { status, statusText, headers: answerHeaders });
}

/** `fallback` for every request but a POST of a record batch, which goes over node:http. */
export function recordBatchPostOverHttp(fallback: FetchFunction): FetchFunction {
  return async (request) => {
    const url = new URL(request.url);
    if (request.method !== "POST" || request.headers.get("content-type") !== recordBatchContentType || (url.protocol !== "http:" && url.protocol !== "https:")) {
      return fallback(request);
    }
    const body = new Uint8Array(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    headers["content-length"] = String(body.byteLength);
    const send = url.protocol === "https:" ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = send(
        url.href,
        { method: "POST", headers, agent: upstreamAgents[url.protocol as "http:" | "https:"], signal: request.signal },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("error", reject);
          answer.on("end", () => resolve(responseOf(answer.statusCode ?? 502, answer.headers, chunks, answer.statusMessage)));
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  };
}
