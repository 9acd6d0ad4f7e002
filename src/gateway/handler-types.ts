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

/** What a handler knows of the connection its request came on. */
export interface GatewayRequestContext {
  /** The client for this connection's credentials (the SASL PLAIN password, else the gateway's own token). */
  readonly tributary: Tributary;
  /** The same credentials at the HTTP level, for routes the client does not wrap. */
  readonly transport: Transport;
  /** The version of the request being handled. */
  readonly apiVersion: number;
  /** The request header's client id (null when the client sent none). */
  readonly clientId: string | null;
  /** The client's address as the gateway sees it (Kafka's `clientHost`, e.g. "/127.0.0.1"). */
  readonly clientHost: string;
  /** Unique per connection for the life of the process. */
  readonly connectionId: number;
  /** Registers a function run once when the connection closes (for per-connection state). */
  onClose(listener: () => void): void;
}

/** Answers one decoded request. Throwing closes the connection (logged); answer Kafka error codes instead. */
export type GatewayHandler<Request = unknown, Response = unknown> = (request: Request, context: GatewayRequestContext) => Promise<Response>;

/** Handlers by Kafka API key. */
export type GatewayHandlers = Partial<Record<number, GatewayHandler<never, unknown>>>;
