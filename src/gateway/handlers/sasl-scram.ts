/**
 * SCRAM-SHA-256 and SCRAM-SHA-512 through the gateway (docs/gateway.md, Authentication): the
 * deployment keeps each scoped token's SCRAM credentials and checks the exchange; the gateway
 * relays it and never learns the token.
 *
 *   client ── SaslAuthenticate(client-first) ──► gateway ── POST /v1/scram/first ──► deployment
 *   client ◄── server-first ─────────────────── gateway ◄── {serverFirst, exchange} ──┘
 *   client ── SaslAuthenticate(client-final) ──► gateway ── POST /v1/scram/final ──► deployment
 *   client ◄── server-final, sessionLifetimeMs ─ gateway ◄── {serverFinal, token, lifetimeMs}
 *
 * The session token answered acts as the scoped token the username named; it becomes the
 * connection's credentials until its lifetime ends, which the client is told (KIP-368: it
 * authenticates again before then, or the gateway closes the connection at its next request).
 * A refused exchange is SASL_AUTHENTICATION_FAILED with the deployment's reason; a deployment
 * that cannot be reached closes the connection, so that the client connects and tries again.
 */
import { isRetriable, TributaryError } from "../../errors.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";
import { saslAnswer, type SaslAuthenticateAnswer } from "./sasl-answer.ts";

const utf8 = new TextEncoder();

/** A refusal as SaslAuthenticate's answer; anything retriable is thrown, closing the connection. */
function refused(error: unknown): SaslAuthenticateAnswer {
  if (!(error instanceof TributaryError) || isRetriable(error)) throw error;
  const message = error.code === "SECURITY_DISABLED" ? `${error.message}; on a deployment without one, use PLAIN` : error.message;
  return saslAnswer(kafkaErrors.SASL_AUTHENTICATION_FAILED, message);
}

export async function scramAuthenticate(mechanism: string, authBytes: Uint8Array, context: GatewayRequestContext): Promise<SaslAuthenticateAnswer> {
  const { sasl } = context;
  const message = new TextDecoder().decode(authBytes);
  const exchange = sasl.scramExchange;
  if (exchange === null) {
    try {
      const first = await sasl.scram<{ serverFirst: string; exchange: string }>("first", { mechanism, clientFirst: message });
      sasl.scramExchange = first.exchange;
      return saslAnswer(kafkaErrors.NONE, null, utf8.encode(first.serverFirst));
    } catch (error) {
      sasl.mechanism = null;
      return refused(error);
    }
  }
  sasl.mechanism = null;
  sasl.scramExchange = null;
  const sentAt = performance.now();
  let final: { serverFinal: string; token: string; lifetimeMs: number };
  try {
    const ttl = sasl.maxReauthMs > 0 ? { ttlMs: sasl.maxReauthMs } : {};
    final = await sasl.scram("final", { exchange, clientFinal: message, ...ttl });
  } catch (error) {
    return refused(error);
  }
  // Counted from before the call, so the gateway's end comes no later than the token's expiry.
  const endsAt = sentAt + final.lifetimeMs;
  const code = await sasl.authenticate(final.token, endsAt - performance.now());
  if (code !== kafkaErrors.NONE) return saslAnswer(code, "the deployment refused the session token it had just answered");
  return saslAnswer(kafkaErrors.NONE, null, utf8.encode(final.serverFinal), endsAt - performance.now());
}
