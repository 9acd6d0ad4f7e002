/**
 * One client connection: frames in, each request decoded and handed to its handler once the
 * request before it has been handled, answers written in request order (Kafka's one rule of
 * ordering per connection: requests take effect in the order they were sent), nothing written for
 * a produce with acks=0. Bounded: a frame over gatewayFrameBytesMax or one that does not decode
 * closes this connection (one log line) and nothing else; past gatewayInFlightRequestsMax
 * unanswered requests, or gatewayBufferedBytesMax of answers the client has not read, the
 * socket is not read until that drops; a connection idle for gatewayIdleMs is closed.
 *
 *   socket ─► FrameReader ─► readRequest ─► handler, after the one before ─┐
 *   socket ◄─ write in order ◄─ writeResponse ◄─────────────────────────────┘
 */
import type { Socket } from "node:net";
import { path } from "../client/transport.ts";
import { gatewayBufferedBytesMax, gatewayIdleMs, gatewayInFlightRequestsMax } from "../limits.ts";
import { apiVersionsAnswer, apiVersionsRefusal, expectedNodeCheck } from "./handlers/api-versions.ts";
import type { BrokerInfo, GatewayHandler, GatewayHandlers, GatewayRequestContext, GatewayRunHandler, SaslState } from "./handler-types.ts";
import { kafkaErrors } from "./kafka-errors.ts";
import { apiKeys } from "./protocol/apis.ts";
import { noAnswer } from "./no-answer.ts";
import { nextReadOrder } from "./read-order.ts";
import { FrameReader } from "./protocol/frames.ts";
import { readRequest, schemaName, writeResponse, type RequestHeader } from "./protocol/messages.ts";
import type { GatewayStats } from "./gateway-stats.ts";
import type { Session, Sessions } from "./session.ts";

type Answer = Record<string, unknown> | typeof noAnswer;

/** A request read, waiting for the one before it to be handled. */
interface Unhandled {
  header: RequestHeader;
  /** When its frame was read off the socket (read-order.ts). */
  readOrder: number;
  body: unknown;
  handler: GatewayHandler<never, unknown> | GatewayRunHandler<never, unknown>;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

export interface ConnectionOptions {
  handlers: GatewayHandlers;
  broker: BrokerInfo;
  sessions: Sessions;
  /** The gateway's own token (`--token`), used until the client authenticates with SASL. */
  token: string | undefined;
  maxFrameBytes: number;
  /** A line about a connection closed for an error. */
  log(line: string): void;
  /** Checks a token against the deployment: a Kafka error code, 0 when it is accepted. */
  checkToken(session: Session): Promise<number>;
  /** The process's counters (--metrics). */
  stats: GatewayStats;
  /** Kafka's connections.max.reauth.ms (`--max-reauth`): how long a SASL session lasts; 0 for no bound but its credential's. */
  maxReauthMs: number;
}

export class GatewayConnection {
  readonly id: number;
  readonly #socket: Socket;
  readonly #options: ConnectionOptions;
  readonly #reader: FrameReader;
  readonly #clientHost: string;
  readonly #closeListeners: (() => void)[] = [];
  #token: string | undefined;
  #session: Session;
  /** When the connection's SASL session ends (performance.now()); undefined while it has no end. */
  #sessionEndsAt: number | undefined;
  #inFlight = 0;
  /** Whole frames read while the bound was reached, dispatched as answers go (the socket is paused meanwhile). */
  readonly #waiting: { frame: Uint8Array; readOrder: number }[] = [];
  #tail: Promise<void> = Promise.resolve();
  /** Requests read and not yet handed to their handler, oldest first: each waits for the one before it. */
  readonly #unhandled: Unhandled[] = [];
  /** Whether a handler is at work on this connection's requests. */
  #handling = false;
  #closed = false;
  /** Failed: destroyed, its 'close' not yet seen; said once. */
  #failed = false;
  #draining = false;
  #idle: (() => void) | undefined;
  /** The connection's SASL state, as handlers see it. */
  readonly #sasl: SaslState;

  constructor(socket: Socket, id: number, options: ConnectionOptions) {
    this.id = id;
    this.#socket = socket;
    this.#options = options;
    this.#sasl = {
      mechanism: null,
      scramExchange: null,
      authenticate: (token, lifetimeMs) => this.#authenticate(token, lifetimeMs),
      scram: (step, body) => this.#scram(step, body),
      maxReauthMs: options.maxReauthMs,
    };
    this.#reader = new FrameReader(options.maxFrameBytes);
    this.#clientHost = `/${socket.remoteAddress ?? "unknown"}`;
    this.#token = options.token;
    this.#session = options.sessions.acquire(this.#token);
    socket.setNoDelay(true);
    socket.setTimeout(gatewayIdleMs);
    socket.on("timeout", () => {
      if (this.#inFlight === 0) socket.destroy();
    });
    socket.on("data", (chunk: Buffer) => this.#onData(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    socket.on("drain", () => this.#resumeIfRoom());
    socket.on("error", () => {}); // 'close' follows; a reset by the client is not the gateway's error
    socket.on("close", () => this.#onClose());
  }

  /** Requests read and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Stops reading requests; answers what is in flight, then ends the connection. */
  drain(): Promise<void> {
    this.#draining = true;
    this.#socket.pause();
    return new Promise((resolve) => {
      const done = () => {
        if (!this.#closed) this.#socket.end();
        resolve();
      };
      if (this.#inFlight === 0 || this.#closed) done();
      else this.#idle = done;
    });
  }

  /** Ends the connection now. */
  destroy(): void {
    this.#socket.destroy();
  }

  #fail(reason: string): void {
    this.#waiting.length = 0; // a failed connection starts nothing more
    if (this.#closed || this.#failed) return;
    this.#failed = true;
    this.#options.stats.connectionsClosedForErrors += 1;
    this.#options.log(`connection ${this.id} from ${this.#socket.remoteAddress}:${this.#socket.remotePort} closed: ${reason}`);
    this.#socket.destroy();
  }

  #onData(chunk: Uint8Array): void {
    if (this.#closed) return;
    const read = this.#reader.push(chunk);
    if (!read.ok) return this.#fail(read.error);
    for (const frame of read.frames) this.#waiting.push({ frame, readOrder: nextReadOrder() });
    this.#pump();
  }

  /**
   * Dispatches waiting frames while fewer than the bound are in flight; reads the socket again
   * only when none wait. Frames read before the client closed are dispatched too: a producer
   * with acks=0 closes as soon as its last request is written, and Kafka's broker still handles
   * every request it received.
   */
  #pump(): void {
    while (this.#waiting.length > 0 && this.#inFlight < gatewayInFlightRequestsMax) this.#dispatch(this.#waiting.shift()!);
    if (this.#waiting.length > 0 && !this.#closed) this.#socket.pause();
  }

  #dispatch({ frame, readOrder }: { frame: Uint8Array; readOrder: number }): void {
    const read = readRequest(frame);
    if (!read.ok) return this.#fail(`malformed request: ${read.error}`);
    const request = read.value;
    const { header } = request;
    this.#options.stats.request(schemaName(header.apiKey), request.kind === "request" ? request.trailingBytes : 0);
    let answer: Promise<Answer>;
    let answerHeader: RequestHeader = header;
    if (header.apiKey === apiKeys.ApiVersions) {
      // An ApiVersions version the gateway does not know gets a v0 answer listing what it knows (as Kafka does).
      const supported = request.kind === "request";
      if (!supported) answerHeader = { ...header, apiVersion: 0 };
      const refusal = supported ? expectedNodeCheck(request.body, header.apiVersion, this.#options.broker) : kafkaErrors.NONE;
      answer = Promise.resolve(
        refusal !== kafkaErrors.NONE ? apiVersionsRefusal(refusal) : apiVersionsAnswer(this.#options.handlers, supported ? kafkaErrors.NONE : kafkaErrors.UNSUPPORTED_VERSION, answerHeader.apiVersion),
      );
    } else {
      const handler = this.#options.handlers[header.apiKey];
      if (request.kind === "unsupported" || handler === undefined) {
        return this.#fail(`unsupported request: ${schemaName(header.apiKey)} v${header.apiVersion}`);
      }
      answer = new Promise((resolve, reject) => this.#unhandled.push({ header, readOrder, body: request.body, handler, resolve, reject }));
      this.#handleNext();
    }
    this.#inFlight += 1;
    if (this.#inFlight >= gatewayInFlightRequestsMax && !this.#closed) this.#socket.pause();
    // Answers leave in request order: each waits for the one before it.
    this.#tail = this.#tail.then(async () => {
      let body: Answer;
      try {
        body = await answer;
      } catch (error) {
        this.#fail(`${schemaName(header.apiKey)} v${header.apiVersion} failed: ${error instanceof Error ? error.message : String(error)}`);
        return;
      } finally {
        this.#inFlight -= 1;
      }
      if (body !== noAnswer && !this.#closed) {
        let chunks: Uint8Array[];
        try {
          chunks = writeResponse(answerHeader, body);
        } catch (error) {
          this.#fail(`${schemaName(header.apiKey)} v${header.apiVersion}: the answer does not encode: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
        this.#socket.cork();
        for (const chunk of chunks) this.#socket.write(chunk);
        this.#socket.uncork();
      }
      this.#resumeIfRoom();
    });
  }

  /**
   * Kafka's broker handles one request of a connection at a time, in order, and clients rely
   * on it: an idempotent producer's requests must reach the partition in sequence order, a
   * producer's records keep the order they were sent in, a commit follows the fetch before
   * it. So the next request goes to its handler once the one before it has been handled (its
   * answer may still wait to be written), with the connection's credentials as they are then
   * (a SaslAuthenticate before it may have changed them). A run handler (Produce) takes the
   * request with every request of the same API and version read after it meanwhile. Requests
   * already read are handled even after the client closed the connection, as Kafka's broker
   * does (a producer with acks=0 may close right after its last request).
   */
  #handleNext(): void {
    if (this.#handling) return;
    const first = this.#unhandled.shift();
    if (first === undefined) return;
    this.#handling = true;
    const run = [first];
    const { handler, header } = first;
    if (this.#sessionEnded(header.apiKey)) {
      const ended = new Error("its SASL session ended and the client did not authenticate again (KIP-368: SaslAuthenticate's answer gave the session's lifetime)");
      for (const request of [first, ...this.#unhandled.splice(0)]) request.reject(ended);
      this.#handling = false;
      return;
    }
    let answers: Promise<unknown[]>;
    if (typeof handler === "function") {
      // Through a promise: a handler that throws before its first await closes the connection as any other failure.
      answers = Promise.resolve().then(async () => [await handler(first.body as never, this.#context(header, first.readOrder))]);
    } else {
      for (let next = this.#unhandled[0]; next?.header.apiKey === header.apiKey && next.header.apiVersion === header.apiVersion; next = this.#unhandled[0]) {
        run.push(this.#unhandled.shift()!);
      }
      answers = Promise.resolve().then(() => handler.run(run.map((request) => request.body) as never[], this.#context(header, first.readOrder)));
    }
    answers
      .then(
        (values) => run.forEach((request, index) => request.resolve(values[index] as Answer)),
        (error: unknown) => run.forEach((request) => request.reject(error)),
      )
      .finally(() => {
        this.#handling = false;
        this.#handleNext();
      });
  }

  #resumeIfRoom(): void {
    if (this.#inFlight === 0 && this.#idle !== undefined) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
      return;
    }
    if (this.#draining) return;
    this.#pump();
    if (this.#closed) return;
    if (this.#waiting.length === 0 && this.#inFlight < gatewayInFlightRequestsMax && this.#socket.writableLength <= gatewayBufferedBytesMax) this.#socket.resume();
    else this.#socket.pause();
  }

  #context(header: RequestHeader, readOrder: number): GatewayRequestContext {
    const session = this.#session;
    const sasl = this.#sasl;
    return {
      tributary: session.tributary,
      transport: session.transport,
      session,
      apiVersion: header.apiVersion,
      readOrder,
      clientId: header.clientId,
      clientHost: this.#clientHost,
      connectionId: this.id,
      broker: this.#options.broker,
      onClose: (listener) => {
        if (this.#closed) listener();
        else this.#closeListeners.push(listener);
      },
      sasl,
    };
  }

  /**
   * Whether a request may no longer be handled: the connection's SASL session ended. Kafka's
   * broker closes such a connection at its next request other than the ones that authenticate
   * it again (KIP-368), and so does the gateway; the client connects and authenticates anew.
   */
  #sessionEnded(apiKey: number): boolean {
    if (this.#sessionEndsAt === undefined || performance.now() < this.#sessionEndsAt) return false;
    return apiKey !== apiKeys.SaslHandshake && apiKey !== apiKeys.SaslAuthenticate;
  }


  /** A SCRAM step on the deployment, with the gateway's own token (the client's is what SCRAM proves). */
  async #scram<T>(step: "first" | "final", body: Record<string, unknown>): Promise<T> {
    const session = this.#options.sessions.acquire(this.#options.token);
    try {
      return await session.transport.json<T>({ method: "POST", path: path("scram", step), json: body });
    } finally {
      this.#options.sessions.release(this.#options.token, session);
    }
  }

  async #authenticate(token: string | undefined, lifetimeMs?: number): Promise<number> {
    const wanted = token ?? this.#options.token;
    const session = this.#options.sessions.acquire(wanted);
    const code = await this.#options.checkToken(session);
    if (code !== kafkaErrors.NONE || this.#closed) {
      this.#options.sessions.release(wanted, session);
      return code;
    }
    this.#options.sessions.release(this.#token, this.#session);
    this.#token = wanted;
    this.#session = session;
    this.#sessionEndsAt = lifetimeMs === undefined ? undefined : performance.now() + lifetimeMs;
    return code;
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.sessions.release(this.#token, this.#session);
    for (const listener of this.#closeListeners.splice(0)) {
      try {
        listener();
      } catch {
        // a listener's failure must not keep the others from running
      }
    }
    const idle = this.#idle;
    this.#idle = undefined;
    idle?.();
  }
}
