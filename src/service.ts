/**
 * The service binding (issue 6): a WorkerEntrypoint other Workers bind to with
 * `services: [{ binding: "TRIBUTARY", service: "tributary", entrypoint: "TributaryService" }]`
 * and call over RPC — `await env.TRIBUTARY.produce("orders", { records: [...] })` — with no
 * HTTP hop. Each method hands API.md's request to the router in-process (the same hono app,
 * so the same validation, authorization and errors) and answers a `Result`: the error's code
 * and data travel as a value, which a thrown error's own properties would not
 * (src/protocol/rpc.ts). `fetch` serves the HTTP API itself, so the client's
 * `new Tributary({ binding })` works over the same binding.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { isErrorCode, ok, type ErrorValue, type Result } from "./errors.ts";
import { fetchHeaders, recordBatchContentType } from "./protocol/content-types.ts";
import type { CallOptions, FetchedBatches, FetchQuery, Json, TributaryRpc } from "./protocol/rpc.ts";
import { createApp } from "./app.ts";

const app = createApp();

/** Never reaches a network: the request is handed to the app in-process. */
const rpcOrigin = "http://tributary.rpc";

interface Call {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  segments: (string | number)[];
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  bytes?: Uint8Array;
  accept?: string;
  options?: CallOptions;
}

async function errorValue(response: Response): Promise<ErrorValue> {
  const body = (await response.json().catch(() => undefined)) as { error?: Record<string, unknown> } | undefined;
  const { code, message, ...data } = body?.error ?? {};
  if (isErrorCode(code)) return { code, message: String(message), data };
  return { code: "UNKNOWN_SERVER_ERROR", message: `HTTP ${response.status} without an API error body`, data: { status: response.status } };
}

export class TributaryService extends WorkerEntrypoint<Env> implements TributaryRpc {
  override fetch(request: Request): Response | Promise<Response> {
    return app.fetch(request, this.env, this.ctx);
  }

  async #call<T>(call: Call, read: (response: Response) => Promise<T> = async (response) => (await response.json()) as T): Promise<Result<T>> {
    const url = new URL(`${rpcOrigin}/v1/${call.segments.map((segment) => encodeURIComponent(String(segment))).join("/")}`);
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers = new Headers();
    if (call.options?.token) headers.set("authorization", `Bearer ${call.options.token}`);
    if (call.accept) headers.set("accept", call.accept);
    let body: RequestInit["body"];
    if (call.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(call.json);
    } else if (call.bytes !== undefined) {
      headers.set("content-type", recordBatchContentType);
      body = call.bytes;
    }
    const response = await app.fetch(new Request(url, { method: call.method, headers, body }), this.env, this.ctx);
    if (!response.ok) return { ok: false, error: await errorValue(response) };
    return ok(await read(response));
  }

  #empty(call: Call): Promise<Result<void>> {
    return this.#call(call, async (response) => void (await response.arrayBuffer()));
  }

  produce(topic: string, body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["topics", topic, "records"], json: body, options });
  }

  produceBatches(topic: string, partition: number, batches: Uint8Array, options?: CallOptions & { acks?: 0 | 1 | "all" }) {
    return this.#call<Json>({ method: "POST", segments: ["topics", topic, "partitions", partition, "records"], query: { acks: options?.acks }, bytes: batches, options });
  }

  fetchRecords(topic: string, partition: number, query: FetchQuery, options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["topics", topic, "partitions", partition, "records"], query: { ...query }, options });
  }

  fetchBatches(topic: string, partition: number, query: Omit<FetchQuery, "encoding">, options?: CallOptions) {
    return this.#call<FetchedBatches>(
      { method: "GET", segments: ["topics", topic, "partitions", partition, "records"], query: { ...query }, accept: recordBatchContentType, options },
      async (response) => ({
        batches: new Uint8Array(await response.arrayBuffer()),
        highWatermark: Number(response.headers.get(fetchHeaders.highWatermark)),
        logStartOffset: Number(response.headers.get(fetchHeaders.logStartOffset)),
        nextOffset: Number(response.headers.get(fetchHeaders.nextOffset)),
      }),
    );
  }

  offset(topic: string, partition: number, at: "earliest" | "latest" | number, options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["topics", topic, "partitions", partition, "offsets"], query: { at }, options });
  }

  createTopic(body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["topics"], json: body, options });
  }

  listTopics(options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["topics"], options });
  }

  describeTopic(topic: string, options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["topics", topic], options });
  }

  alterTopicConfigs(topic: string, configs: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "PATCH", segments: ["topics", topic, "configs"], json: { configs }, options });
  }

  createPartitions(topic: string, count: number, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["topics", topic, "partitions"], json: { count }, options });
  }

  deleteTopic(topic: string, options?: CallOptions) {
    return this.#empty({ method: "DELETE", segments: ["topics", topic], options });
  }

  joinGroup(group: string, body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["groups", group, "members"], json: body, options });
  }

  heartbeat(group: string, memberId: string, body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["groups", group, "members", memberId, "heartbeat"], json: body, options });
  }

  poll(group: string, memberId: string, body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["groups", group, "members", memberId, "poll"], json: body, options });
  }

  leaveGroup(group: string, memberId: string, options?: CallOptions) {
    return this.#empty({ method: "DELETE", segments: ["groups", group, "members", memberId], options });
  }

  commitOffsets(group: string, body: Json, options?: CallOptions) {
    return this.#empty({ method: "POST", segments: ["groups", group, "offsets"], json: body, options });
  }

  groupOffsets(group: string, options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["groups", group, "offsets"], options });
  }

  resetGroupOffsets(group: string, body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["groups", group, "offsets", "reset"], json: body, options });
  }

  describeGroup(group: string, options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["groups", group], options });
  }

  listGroups(options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["groups"], options });
  }

  deleteGroup(group: string, options?: CallOptions) {
    return this.#empty({ method: "DELETE", segments: ["groups", group], options });
  }

  createToken(body: Json, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["tokens"], json: body, options });
  }

  listTokens(options?: CallOptions) {
    return this.#call<Json>({ method: "GET", segments: ["tokens"], options });
  }

  revokeToken(id: string, options?: CallOptions) {
    return this.#empty({ method: "DELETE", segments: ["tokens", id], options });
  }

  createWriteToken(topic: string, body: Json = {}, options?: CallOptions) {
    return this.#call<Json>({ method: "POST", segments: ["topics", topic, "write-tokens"], json: body, options });
  }
}
