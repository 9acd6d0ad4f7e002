/**
 * The gateway's reads of stored record batches (Fetch's binary `GET …/records`) over node:http
 * on the kept-alive connections its produce POSTs use (upstream-post.ts), instead of `fetch`:
 * the answer's body stays the chunks the socket delivered, handed to the Fetch answer as they
 * are (the connection writes them to the client after its header: no copy in this process).
 * Through undici's fetch, each read built a Request, read its body through web streams and
 * copied the chunks into one ArrayBuffer; in a profile of kafkajs consuming through the gateway
 * that was more CPU than the gateway's own code (see bench/RESULTS.md, "Kafka gateway").
 *
 * The same contract as the client's Transport.call: the bearer token, the request timeout plus
 * the long poll's wait, the caller's abort stays an abort (and closes the request), an error
 * answer is its TributaryError (API.md's error body), a refused or reset connection is
 * NETWORK_EXCEPTION and no answer in time REQUEST_TIMED_OUT. A GET that failed because the
 * kept-alive connection it reused had been closed by the server is sent once more on a new one.
 */
import http from "node:http";
import https from "node:https";
import { gunzipSync, inflateSync, brotliDecompressSync } from "node:zlib";
import { errorFromResponse, networkError, noAnswerError } from "../client/errors.ts";
import type { Secret } from "../client/secret.ts";
import { labelled } from "../client/transport.ts";
import { TributaryError } from "../errors.ts";
import { recordBatchContentType } from "../protocol/content-types.ts";
import { responseOf, upstreamAgents } from "./upstream-post.ts";

export interface RecordsRequest {
  /** Path under the base URL, its segments already encoded (the client's `path`). */
  path: string;
  query: Record<string, string | number>;
  /** Added to the request timeout: the long poll's own wait. */
  waitMs: number;
  signal?: AbortSignal;
}

export interface RecordsAnswer {
  /** The body as the socket delivered it, in order. */
  chunks: Uint8Array[];
  /** Their total length. */
  bytes: number;
  /** An answer header by its lower-case name. */
  header(name: string): string | undefined;
}

export type RecordsRead = (request: RecordsRequest) => Promise<RecordsAnswer>;

export interface UpstreamOptions {
  /** The deployment's URL (http: or https:), without a trailing slash. */
  baseUrl: string;
  /** How errors name the server (its origin). */
  server: string;
  token: Secret | undefined;
  requestTimeoutMs: number;
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  chunks: Buffer[];
  bytes: number;
}

/** The decompressed body, should a proxy on the way compress despite `accept-encoding: identity`. */
function decoded(raw: Raw): Raw {
  const encoding = String(raw.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return raw;
  const whole = Buffer.concat(raw.chunks, raw.bytes);
  const body = encoding === "gzip" ? gunzipSync(whole) : encoding === "deflate" ? inflateSync(whole) : encoding === "br" ? brotliDecompressSync(whole) : undefined;
  if (body === undefined) throw new SyntaxError(`an answer in an unknown content-encoding: ${encoding}`);
  return { ...raw, chunks: [body], bytes: body.length };
}

export function recordBatchReadsOverHttp(options: UpstreamOptions): RecordsRead {
  const base = new URL(options.baseUrl);
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error(`the gateway reads over http: or https:, not ${base.protocol}`);
  const send = base.protocol === "https:" ? https.request : http.request;
  const agent = upstreamAgents[base.protocol];
  const prefix = base.pathname.replace(/\/$/, "");
  const headers: Record<string, string> = { accept: recordBatchContentType, "accept-encoding": "identity" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token.reveal()}`;

  const once = (target: string, signal: AbortSignal, allowRetry: boolean): Promise<Raw> =>
    new Promise<Raw>((resolve, reject) => {
      const outgoing = send({ protocol: base.protocol, hostname: base.hostname, port: base.port, path: target, method: "GET", headers, agent, signal }, (answer) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        answer.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          bytes += chunk.length;
        });
        answer.on("error", reject);
        answer.on("end", () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, chunks, bytes }));
        // A body cut off by a closed connection never ends; a promise already resolved ignores this.
        answer.on("close", () => reject(new Error("the connection closed before the answer ended")));
      });
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as this request went out on it: GET is safe to send again.
        if (allowRetry && outgoing.reusedSocket && error.code === "ECONNRESET" && !signal.aborted) resolve(once(target, signal, false));
        else reject(error);
      });
      outgoing.end();
    });

  return async (request) => {
    let target = `${prefix}${request.path}`;
    const query = Object.entries(request.query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    if (query.length > 0) target += `?${query.join("&")}`;
    const what = `GET ${request.path}`;
    const timeout = AbortSignal.timeout(options.requestTimeoutMs + request.waitMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let raw: Raw;
    try {
      raw = await once(target, signal, true);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw labelled(timeout.aborted ? noAnswerError(what, error) : networkError(what, options.server, error), what);
    }
    if (raw.status < 200 || raw.status > 299) {
      throw labelled(await errorFromResponse(responseOf(raw.status, raw.headers, raw.chunks)), what);
    }
    let body: Raw;
    try {
      body = decoded(raw);
    } catch (error) {
      throw labelled(new TributaryError("UNKNOWN_SERVER_ERROR", `${what}: unreadable answer (${error instanceof Error ? error.message : String(error)})`), what);
    }
    return {
      chunks: body.chunks,
      bytes: body.bytes,
      header: (name) => {
        const value = body.headers[name];
        return Array.isArray(value) ? value.join(", ") : value;
      },
    };
  };
}
