/**
 * Every HTTP call of the client, over `fetch` to a URL or `binding.fetch` of a service binding
 * (same API, no public hop): the bearer token, a timeout per request, and API.md's error
 * bodies rebuilt as TributaryErrors. No retries here; callers retry with retry.ts.
 */
import { TributaryError } from "../errors.ts";
import { recordBatchContentType } from "../protocol/content-types.ts";
import { BatchFormatError } from "../protocol/record-batch.ts";
import { errorFromResponse, networkError, noAnswerError } from "./errors.ts";
import type { Secret } from "./secret.ts";

/** A service binding (Fetcher), or anything with its `fetch`. */
export interface FetcherLike {
  fetch(request: Request): Promise<Response>;
}

export type FetchFunction = (request: Request) => Promise<Response>;

/** The host is ignored by a service binding; a URL still needs one. */
export const bindingBaseUrl = "http://tributary.binding";

export interface TransportOptions {
  baseUrl: string;
  /** How errors name the server: the URL's origin, or "(service binding)". */
  server: string;
  token: Secret | undefined;
  fetch: FetchFunction;
  requestTimeoutMs: number;
}

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

export interface ApiRequest {
  method: Method;
  /** Path under the base URL, its segments already encoded (see `path`). */
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  bytes?: Uint8Array;
  contentType?: string;
  accept?: string;
  /** Other request headers (a stream's `Last-Event-ID`). */
  headers?: Record<string, string>;
  /** Added to the request timeout: a long poll's own wait. */
  waitMs?: number;
  signal?: AbortSignal;
}

/** `/v1/topics/{topic}/…` with each segment percent-encoded: a name never changes the route. */
export function path(...segments: (string | number)[]): string {
  return `/v1/${segments.map((segment) => encodeURIComponent(String(segment))).join("/")}`;
}

export class Transport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  /** Sends the request and reads the successful answer with `read`; any failure is a TributaryError. */
  async call<T>(request: ApiRequest, read: (response: Response) => Promise<T>): Promise<T> {
    const timeout = AbortSignal.timeout(this.#options.requestTimeoutMs + (request.waitMs ?? 0));
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const what = `${request.method} ${request.path}`;
    let response: Response;
    try {
      response = await this.#options.fetch(this.#build(request, signal));
    } catch (error) {
      throw labelled(this.#failure(what, error, request.signal, timeout), what);
    }
    if (!response.ok) throw labelled(await errorFromResponse(response), what);
    try {
      return await read(response);
    } catch (error) {
      throw labelled(this.#failure(what, error, request.signal, timeout), what);
    }
  }

  /**
   * Opens an answer that streams (server-sent events): the request timeout applies until its
   * headers come, not to the body, which the caller reads for as long as it wants and ends
   * with `request.signal`. A failure before the body is a TributaryError, as `call`'s.
   */
  async open(request: ApiRequest): Promise<Response> {
    const what = `${request.method} ${request.path}`;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException("no answer in time", "TimeoutError")), this.#options.requestTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    try {
      const response = await this.#options.fetch(this.#build(request, signal));
      if (!response.ok) throw labelled(await errorFromResponse(response), what);
      return response;
    } catch (error) {
      throw labelled(this.#failure(what, error, request.signal, timeout.signal), what);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A failure while reading an opened stream's body: the caller's abort stays one; a broken connection is NETWORK_EXCEPTION. */
  streamFailure(request: ApiRequest, error: unknown): unknown {
    const what = `${request.method} ${request.path}`;
    if (request.signal?.aborted) return request.signal.reason;
    if (error instanceof TributaryError) return labelled(error, what);
    return labelled(networkError(what, this.#options.server, error), what);
  }

  /** Whether calls go through a service binding (which has no WebSocket to open). */
  get viaBinding(): boolean {
    return this.#options.baseUrl === bindingBaseUrl;
  }

  /** The ws:// or wss:// URL of a path under the base URL, with its query. */
  webSocketUrl(path: string, query: Record<string, string | number | undefined>): string {
    const url = new URL(this.#options.baseUrl + path);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  /** How errors name the server: the URL's origin, or "(service binding)". */
  get server(): string {
    return this.#options.server;
  }

  /** Whether requests carry a token. */
  get hasToken(): boolean {
    return this.#options.token !== undefined;
  }

  async json<T>(request: ApiRequest): Promise<T> {
    return this.call(request, async (response) => {
      const text = await response.text();
      return (text === "" ? undefined : JSON.parse(text)) as T;
    });
  }

  /** For answers without a body worth reading (204). */
  async empty(request: ApiRequest): Promise<void> {
    await this.call(request, async (response) => void (await response.arrayBuffer()));
  }

  #build(request: ApiRequest, signal: AbortSignal): Request {
    const url = new URL(this.#options.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers = new Headers(request.headers);
    const token = this.#options.token;
    if (token) headers.set("authorization", `Bearer ${token.reveal()}`);
    if (request.accept) headers.set("accept", request.accept);
    // Record batches barely compress, and a binary produce's answer is a few bytes: asking for
    // gzip there only costs the server (workerd compresses in the Worker's process under
    // wrangler dev) and this process CPU. Runtimes that own the header (browsers) ignore it.
    if (request.bytes !== undefined || request.accept === recordBatchContentType) headers.set("accept-encoding", "identity");
    let body: RequestInit["body"];
    if (request.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(request.json);
    } else if (request.bytes !== undefined) {
      headers.set("content-type", request.contentType ?? "application/octet-stream");
      body = request.bytes;
    }
    return new Request(url, { method: request.method, headers, body, signal });
  }

  /**
   * The caller's own abort stays an abort; the request timeout is REQUEST_TIMED_OUT; anything
   * else that left no answer is a failed connection (NETWORK_EXCEPTION). Both are retriable.
   */
  #failure(what: string, error: unknown, callerSignal: AbortSignal | undefined, timeout: AbortSignal): unknown {
    if (callerSignal?.aborted) return callerSignal.reason;
    if (error instanceof TributaryError) return error;
    if (error instanceof SyntaxError || error instanceof BatchFormatError) {
      return new TributaryError("UNKNOWN_SERVER_ERROR", `${what}: unreadable answer (${error.message})`);
    }
    if (timeout.aborted) return noAnswerError(what, error);
    return networkError(what, this.#options.server, error);
  }
}

/** The request each error came from ("GET /v1/topics"), for retry lines; never its query or headers. */
const requestOfError = new WeakMap<object, string>();

/** Remembers that `error` came from the request `what` ("GET /v1/topics"), for `failedRequest`. */
export function labelled(error: unknown, what: string): unknown {
  if (error !== null && typeof error === "object" && !requestOfError.has(error)) requestOfError.set(error, what);
  return error;
}

/** "METHOD /path" of the request that failed with `error`, when the transport threw it. */
export function failedRequest(error: unknown): string | undefined {
  return error !== null && typeof error === "object" ? requestOfError.get(error) : undefined;
}
