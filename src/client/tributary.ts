/**
 * The client's entry: `new Tributary({ url, token })` over HTTP, or `new Tributary({ binding })`
 * from another Worker through a service binding (the same HTTP API via `binding.fetch`, no
 * public hop). From it: `admin()`, `producer()`, `consumer({ groupId })` and the resource
 * `topic(name)`. Runs wherever `fetch` does: Workers, Node ≥ 20, browsers.
 *
 * The token never prints: the client and its `config` show `<redacted>` in String(),
 * JSON.stringify and util.inspect.
 */
import { Admin } from "./admin.ts";
import { Consumer, type ConsumerOptions, type StreamSourceFactory } from "./consumer.ts";
import { GroupMember } from "./group-member.ts";
import { ClientLog, type Logger, type LogLevel } from "./logger.ts";
import { MetadataCache, metadataMaxAgeMsMax } from "./metadata.ts";
import { Producer, type ProducerOptions } from "./producer.ts";
import { retryPolicy, type RetryPolicy } from "./retry.ts";
import { ShareConsumer } from "./share-consumer.ts";
import type { ShareConsumerOptions } from "./share-types.ts";
import { inspectSymbol, redacted, Secret } from "./secret.ts";
import { StreamPolls } from "./stream-polls.ts";
import { streamWebSocket, type WebSocketConstructor } from "./stream.ts";
import { TopicHandle } from "./topic.ts";
import { bindingBaseUrl, Transport, type FetcherLike, type FetchFunction } from "./transport.ts";

export interface TributaryConfig {
  /** Base URL of the Worker, e.g. https://tributary.example.workers.dev (without /v1). */
  url?: string;
  /** Bearer token (the admin token, a scoped one or a write token); a `Secret` as `admin().tokens.create` answers it, or its string. */
  token?: string | Secret;
  /** A service binding (Fetcher) to the Tributary Worker, instead of `url`. */
  binding?: FetcherLike;
  /** A fetch to use instead of the global one (a proxy, a test double). */
  fetch?: FetchFunction;
  /**
   * A WebSocket class for streams, instead of the runtime's (a test double; on Node 20, which
   * has none, the `ws` package's). Without one, streams use the global WebSocket, unless calls
   * go through `fetch` or `binding` (which a socket would bypass): then SSE.
   */
  webSocket?: WebSocketConstructor;
  /** Per request, beyond any long-poll wait. Default 30000. */
  requestTimeoutMs?: number;
  /** The one backoff policy (retry.ts), for every retried call. */
  retry?: Partial<RetryPolicy>;
  /** How long topic metadata is trusted, at most 5000 (API.md's propagation bound). Default 5000. */
  metadataMaxAgeMs?: number;
  /** Where the client says what it is doing (retries, a consumer rejoining); `console` fits. Default: the console, as `tributary: <message>`. */
  logger?: Logger;
  /** The least level logged. Default "warn": a retry shows once its call has been retrying for 2 s. */
  logLevel?: LogLevel | "nothing";
}

/** What the client shows of its configuration: never the token itself. */
export interface RedactedConfig {
  url: string;
  token: Secret | undefined;
  binding: boolean;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  metadataMaxAgeMs: number;
}

export class Tributary {
  readonly #transport: Transport;
  readonly #metadata: MetadataCache;
  readonly #policy: RetryPolicy;
  readonly #log: ClientLog;
  readonly #streams: { webSocket: WebSocketConstructor | undefined; customFetch: boolean; requestTimeoutMs: number };
  /** Frozen, with the token as a Secret: safe to log. */
  readonly config: Readonly<RedactedConfig>;

  constructor(config: TributaryConfig) {
    if (config === null || typeof config !== "object") throw new TypeError("new Tributary({ url, token }) or new Tributary({ binding })");
    const { binding, url } = config;
    if ((binding === undefined) === (url === undefined)) throw new TypeError("give exactly one of url and binding");
    if (binding !== undefined && typeof binding.fetch !== "function") throw new TypeError("binding must have a fetch method (a service binding)");
    const baseUrl = binding ? bindingBaseUrl : normalizeUrl(url!);
    const token = secretOf(config.token);
    const requestTimeoutMs = config.requestTimeoutMs ?? 30_000;
    if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs <= 0) throw new RangeError("requestTimeoutMs must be a positive integer");
    this.#policy = retryPolicy(config.retry);
    this.#log = new ClientLog(config.logger, config.logLevel);
    if (config.webSocket !== undefined && typeof config.webSocket !== "function") throw new TypeError("webSocket must be a WebSocket class");
    this.#streams = { webSocket: config.webSocket, customFetch: config.fetch !== undefined, requestTimeoutMs };
    const send: FetchFunction = binding
      ? (request) => binding.fetch(request)
      : (config.fetch ?? ((request) => globalThis.fetch(request)));
    this.#transport = new Transport({ baseUrl, server: binding ? "(service binding)" : new URL(baseUrl).origin, token, fetch: send, requestTimeoutMs });
    const metadataMaxAgeMs = config.metadataMaxAgeMs ?? metadataMaxAgeMsMax;
    this.#metadata = new MetadataCache(this.#transport, this.#policy, this.#log, metadataMaxAgeMs);
    this.config = Object.freeze({
      url: binding ? "(service binding)" : baseUrl,
      token,
      binding: binding !== undefined,
      requestTimeoutMs,
      retry: this.#policy,
      metadataMaxAgeMs,
    });
  }

  admin(): Admin {
    return new Admin(this.#context());
  }

  producer(options: ProducerOptions = {}): Producer {
    return new Producer(this.#context(), options);
  }

  consumer(options: ConsumerOptions): Consumer {
    if (typeof options?.groupId !== "string" || options.groupId === "") throw new TypeError("consumer: groupId is required");
    const member = new GroupMember(this.#transport, this.#policy, options, this.#log);
    const listTopics = async () => (await this.admin().topics.list()).map((topic) => topic.name);
    return new Consumer(member, { policy: this.#policy, log: this.#log }, options, listTopics, this.#consumerStreams(options));
  }

  /**
   * The partitions' streams as the consumer's records (stream-polls.ts) — `transport:
   * "websocket"`, or `"auto"` (the default) where the client has a WebSocket; undefined for polls.
   */
  #consumerStreams(options: ConsumerOptions): StreamSourceFactory | undefined {
    const transport = options.transport ?? "auto";
    if (transport !== "auto" && transport !== "poll" && transport !== "websocket") throw new TypeError(`consumer: transport is auto, poll or websocket, got ${String(transport)}`);
    const autoCommitIntervalMs = options.autoCommitIntervalMs ?? 5_000;
    if (!Number.isSafeInteger(autoCommitIntervalMs) || autoCommitIntervalMs < 0) throw new RangeError("consumer: autoCommitIntervalMs must be an integer >= 0");
    if (transport === "poll") return undefined;
    const hasWebSocket = streamWebSocket(this.#context()) !== undefined;
    if (transport === "auto" && !hasWebSocket) return undefined;
    if (!hasWebSocket) {
      throw new TypeError(
        this.#transport.viaBinding
          ? "consumer: a service binding has no WebSocket; use transport poll"
          : "consumer: this runtime has no WebSocket (Node 20); use transport poll, or give one as the client's webSocket option",
      );
    }
    return (member, autoOffsetReset) =>
      new StreamPolls({
        member,
        groupId: options.groupId,
        calls: { transport: this.#transport, policy: this.#policy, log: this.#log },
        stream: (topic, partition, from, signal) => this.topic(topic).partition(partition).streamBatches({ from, transport: "websocket", signal, readUncommitted: options.readUncommitted }),
        offset: async (topic, partition, at) => (await this.topic(topic).offset(partition, at)).offset,
        autoOffsetReset,
        autoCommitIntervalMs,
      });
  }

  /**
   * A share consumer (KIP-932): consumers of one share group work the same partitions together,
   * each record acknowledged on its own (share-consumer.ts).
   */
  shareConsumer(options: ShareConsumerOptions): ShareConsumer {
    return new ShareConsumer({ transport: this.#transport, policy: this.#policy, log: this.#log }, options);
  }

  /** One topic as a resource: `topic("orders").produce([...])`, `.fetch(partition, offset)`, `.partition(p).stream()`. */
  topic(name: string): TopicHandle {
    return new TopicHandle(this.#context(), name);
  }

  toString(): string {
    return `Tributary(${this.config.url}, token: ${this.config.token === undefined ? "none" : redacted})`;
  }

  toJSON(): Readonly<RedactedConfig> {
    return this.config;
  }

  [inspectSymbol](): string {
    return this.toString();
  }

  #context() {
    return { transport: this.#transport, metadata: this.#metadata, policy: this.#policy, log: this.#log, ...this.#streams };
  }
}

function secretOf(token: string | Secret | undefined): Secret | undefined {
  if (token instanceof Secret) return token.reveal() === "" ? undefined : token;
  if (token === undefined || token === "") return undefined;
  if (typeof token !== "string") throw new TypeError("token must be a string or a Secret");
  return new Secret(token);
}

function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`url is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new TypeError("url must be http or https");
  if (parsed.username || parsed.password) throw new TypeError("put credentials in token, not in the url");
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}
