/**
 * The contract between the Kafka gateway's connection loop and its request handlers.
 *
 * A handler receives a decoded request and answers a response object; the codec
 * (src/gateway/protocol/) turns bytes into such objects and back. Field names are those of
 * Kafka's JSON message definitions with the first letter in lower case (`GroupId` →
 * `groupId`); `bytes` fields are `Uint8Array`, nullable strings/bytes are `null`, int64
 * fields are `bigint`, arrays are arrays; error fields are Kafka's numeric error codes
 * (`errorCode`, 0 for none). Fields a version lacks are absent on decode and ignored on
 * encode; tagged fields the gateway does not know are dropped.
 */
import type { Tributary } from "../client/tributary.ts";
import type { Transport } from "../client/transport.ts";
import type { Session } from "./session.ts";

/** What a handler knows of the connection its request came on. */
export interface GatewayRequestContext {
  /** The client for this connection's credentials (a SASL-authenticated client's token, else the gateway's own). */
  readonly tributary: Tributary;
  /** The same credentials at the HTTP level, for routes the client does not wrap. */
  readonly transport: Transport;
  /** The version of the request being handled. */
  readonly apiVersion: number;
  /**
   * When the request's frame was read off its socket, in the order of every frame this process
   * read (read-order.ts); for a run of requests, the first one's. Transactions use it to tell
   * a request read before a transaction's end from one read after (docs/gateway.md, Transactions).
   */
  readonly readOrder: number;
  /** The request header's client id (null when the client sent none). */
  readonly clientId: string | null;
  /** The client's address as the gateway sees it (Kafka's `clientHost`, e.g. "/127.0.0.1"). */
  readonly clientHost: string;
  /** Unique per connection for the life of the process. */
  readonly connectionId: number;
  /** Registers a function run once when the connection closes (for per-connection state). */
  onClose(listener: () => void): void;
  /** The gateway as its clients see it: the one broker (node 0), controller and coordinator. */
  readonly broker: BrokerInfo;
  /** This connection's credentials' session: the topic listing Metadata answers from (`invalidate()` after a change). */
  readonly session: Session;
  /** SASL on this connection (SaslHandshake, SaslAuthenticate). */
  readonly sasl: SaslState;
}

/** What Metadata and FindCoordinator say of the gateway. */
export interface BrokerInfo {
  readonly nodeId: 0;
  /** The advertised address (`--advertise`, else `--listen`). */
  readonly host: string;
  readonly port: number;
  /** Stable per deployment: the same through every gateway pointed at the same URL. */
  readonly clusterId: string;
  /** `--auto-create-topics`: Metadata creates a topic it is asked about (when the client allows it). */
  readonly autoCreateTopics: boolean;
}

export interface SaslState {
  /** The mechanism SaslHandshake chose, null before one and once an authentication is over. */
  mechanism: string | null;
  /** A SCRAM exchange between its two SaslAuthenticate requests: what the deployment's first step answered. */
  scramExchange: string | null;
  /**
   * Makes `token` (undefined: the gateway's own) this connection's credentials; answers a Kafka
   * error code (0 when accepted). With `lifetimeMs` the session ends then: a request after it
   * other than SaslHandshake and SaslAuthenticate (the client re-authenticating, KIP-368)
   * closes the connection, as Kafka's broker does.
   */
  authenticate(token: string | undefined, lifetimeMs?: number): Promise<number>;
  /** A SCRAM exchange's step on the deployment (POST /v1/scram/first or /final), called with the gateway's own token. */
  scram<T>(step: "first" | "final", body: Record<string, unknown>): Promise<T>;
  /** Kafka's connections.max.reauth.ms (`--max-reauth-ms`): how long any SASL session lasts, 0 for no bound but the credential's. */
  readonly maxReauthMs: number;
}

/** Answers one decoded request. Throwing closes the connection (logged); answer Kafka error codes instead. */
export type GatewayHandler<Request = unknown, Response = unknown> = (request: Request, context: GatewayRequestContext) => Promise<Response>;

/**
 * Answers a run of consecutive requests of one API and version on one connection at once: the
 * requests read while the one before them was handled, one answer each, in order (Produce
 * writes each partition's batches of all of them together). `context` is the first request's.
 */
export interface GatewayRunHandler<Request = unknown, Response = unknown> {
  run(requests: readonly Request[], context: GatewayRequestContext): Promise<Response[]>;
}

/** Handlers by Kafka API key. */
export type GatewayHandlers = Partial<Record<number, GatewayHandler<never, unknown> | GatewayRunHandler<never, unknown>>>;
