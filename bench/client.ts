/**
 * The benchmark's HTTP calls, the same for both servers: Node's global fetch (undici), whose
 * default agent keeps connections alive, so a run reuses one connection per request in
 * flight. Every call is bounded by a timeout and by the run's abort signal, and any answer
 * but the expected status fails the benchmark (a figure built on errors means nothing).
 */
import type { FetchAnswer, FetchDetail, ProduceBody, ServerName, Transport } from "./transports.ts";

/**
 * Uncompressed answers. Node's fetch asks for gzip by default, and workerd then compresses
 * every JSON answer inside the runtime process, costing more CPU than building the answer;
 * on Cloudflare compression happens at the edge, outside the Worker, and on loopback it
 * saves nothing.
 */
const identityEncoding = { "accept-encoding": "identity" };
/** A loopback request that takes this long is stuck; the run stops rather than wait. */
const requestTimeoutMs = 30_000;
/** A fetch asks for as many bytes as the API allows, so maxRecords (10,000) is what bounds it. */
export const fetchMaxBytes = 8 * 1024 * 1024;

export interface Endpoint {
  server: ServerName;
  /** Origin, e.g. http://127.0.0.1:41234. */
  url: string;
  transport: Transport;
  /** Aborts every request when the benchmark is stopped (time bound, Ctrl-C, an error). */
  signal: AbortSignal;
  /** The server's process group, to read its CPU time (bench/cpu.ts). */
  processGroupId?: number;
}

/**
 * Runs one request (answer included) with a signal that aborts on the request's timeout, on
 * the benchmark's stop, or on `own`. The listeners are removed when it settles, so nothing
 * accumulates on the long-lived stop signal over thousands of requests.
 */
async function bounded<T>(endpoint: Endpoint, extraMs: number, own: AbortSignal | undefined, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const sources = own ? [endpoint.signal, own] : [endpoint.signal];
  const abort = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${requestTimeoutMs + extraMs} ms`)), requestTimeoutMs + extraMs);
  for (const source of sources) {
    if (source.aborted) controller.abort(source.reason);
    else source.addEventListener("abort", abort, { once: true });
  }
  try {
    return await request(controller.signal);
  } finally {
    clearTimeout(timer);
    for (const source of sources) source.removeEventListener("abort", abort);
  }
}

async function failure(endpoint: Endpoint, what: string, response: Response): Promise<Error> {
  const body = (await response.text()).slice(0, 500);
  return new Error(`${endpoint.server} ${what}: HTTP ${response.status} ${body}`);
}

function topicPath(topic: string): string {
  return `/v1/topics/${encodeURIComponent(topic)}`;
}

/**
 * Creates a topic on Tributary (the baseline has no topics: one object per name). Answers
 * undefined when created, or why it cannot be (e.g. a replication factor not supported yet).
 */
export async function createTopic(
  endpoint: Endpoint,
  name: string,
  partitions: number,
  replicationFactor: number,
  configs: Record<string, string> = {},
): Promise<string | undefined> {
  if (endpoint.server === "baseline") return undefined;
  return bounded(endpoint, 0, undefined, async (signal) => {
    const response = await fetch(`${endpoint.url}/v1/topics`, {
      method: "POST",
      headers: { ...identityEncoding, "content-type": "application/json" },
      body: JSON.stringify({ name, partitions, replicationFactor, configs }),
      signal,
    });
    if (response.status === 201) {
      await response.arrayBuffer();
      return undefined;
    }
    if (response.status === 400) {
      const answer = (await response.json()) as { error?: { code?: string; message?: string } };
      return `${answer.error?.code ?? "400"}: ${answer.error?.message ?? "refused"}`;
    }
    throw await failure(endpoint, `create topic ${name}`, response);
  });
}

/** Tributary's description of a topic (API.md's Topic), as JSON. */
export async function describeTopic(endpoint: Endpoint, name: string): Promise<unknown> {
  return bounded(endpoint, 0, undefined, async (signal) => {
    const response = await fetch(`${endpoint.url}${topicPath(name)}`, { headers: identityEncoding, signal });
    if (response.status !== 200) throw await failure(endpoint, `describe topic ${name}`, response);
    return response.json();
  });
}

/**
 * Sends one produce request and reads the whole answer; returns the records acknowledged.
 * `partition` is where the client put the records (the binary transport names it; JSON
 * leaves the choice to the server's partitioner).
 */
export async function produce(endpoint: Endpoint, topic: string, body: ProduceBody, partition = 0): Promise<number> {
  const acknowledged = await bounded(endpoint, 0, undefined, async (signal) => {
    const response = await fetch(`${endpoint.url}${endpoint.transport.producePath(topic, partition, body)}`, {
      method: "POST",
      headers: { ...identityEncoding, "content-type": body.contentType },
      body: body.body,
      signal,
    });
    if (response.status !== 200) throw await failure(endpoint, `produce to ${topic}`, response);
    return endpoint.transport.readProduceAnswer(endpoint.server, response);
  });
  if (acknowledged !== body.records) {
    throw new Error(`${endpoint.server} acknowledged ${acknowledged} of ${body.records} records`);
  }
  return acknowledged;
}

export interface FetchOptions {
  partition: number;
  offset: number;
  maxRecords: number;
  waitMs: number;
  detail: FetchDetail;
  /** Lets a long-polling consumer be stopped at once. */
  signal?: AbortSignal;
}

export async function fetchRecords(endpoint: Endpoint, topic: string, options: FetchOptions): Promise<FetchAnswer> {
  const query = new URLSearchParams({
    offset: String(options.offset),
    maxRecords: String(options.maxRecords),
    maxBytes: String(fetchMaxBytes),
    waitMs: String(options.waitMs),
  });
  return bounded(endpoint, options.waitMs, options.signal, async (signal) => {
    const response = await fetch(`${endpoint.url}${topicPath(topic)}/partitions/${options.partition}/records?${query}`, {
      headers: { ...identityEncoding, ...endpoint.transport.fetchHeaders() },
      signal,
    });
    if (response.status !== 200) throw await failure(endpoint, `fetch from ${topic}`, response);
    return endpoint.transport.readFetchAnswer(endpoint.server, response, options.offset, options.detail);
  });
}
