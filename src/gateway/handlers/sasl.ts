/**
 * SASL (docs/gateway.md, Authentication): SaslHandshake (v1) chooses one of the mechanisms
 * offered; SaslAuthenticate carries its messages. Every mechanism ends with a Tributary token as
 * the connection's credentials, once the deployment accepted it:
 *
 * - PLAIN: `authzid NUL username NUL password`, the password a Tributary token (the username is
 *   not checked: a token names its own rules); an empty password keeps the gateway's `--token`.
 * - OAUTHBEARER (RFC 7628): `n,[a=…],\x01auth=Bearer <token>\x01[extensions\x01]\x01`, the
 *   bearer a Tributary token; success answers no bytes, as Kafka's broker does.
 * - SCRAM-SHA-256, SCRAM-SHA-512: relayed to the deployment, which holds the credentials
 *   (sasl-scram.ts); the gateway never learns the token.
 *
 * A bad credential fails at once with SASL_AUTHENTICATION_FAILED and a message (for OAUTHBEARER
 * too, rather than RFC 7628's error challenge: Kafka's clients report either). An authentication,
 * done or failed, takes a new SaslHandshake before the next one, as on Kafka's broker.
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";
import { saslAnswer, type SaslAuthenticateAnswer } from "./sasl-answer.ts";
import { scramAuthenticate } from "./sasl-scram.ts";

export const saslMechanisms = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"];

export async function saslHandshake(request: { mechanism: string }, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  context.sasl.scramExchange = null;
  // v0's raw SASL bytes after the handshake are not served (the version is advertised for librdkafka's sake).
  if (context.apiVersion === 0) {
    context.sasl.mechanism = null;
    return { errorCode: kafkaErrors.UNSUPPORTED_VERSION, mechanisms: saslMechanisms };
  }
  if (!saslMechanisms.includes(request.mechanism)) {
    context.sasl.mechanism = null;
    return { errorCode: kafkaErrors.UNSUPPORTED_SASL_MECHANISM, mechanisms: saslMechanisms };
  }
  context.sasl.mechanism = request.mechanism;
  return { errorCode: kafkaErrors.NONE, mechanisms: saslMechanisms };
}

/**
 * The bearer token of an OAUTHBEARER client response (RFC 7628 §3.1), or why there is none. The
 * authorization id and extensions are not used (a token names its own rules).
 */
export function oauthBearerToken(bytes: Uint8Array): { ok: true; token: string } | { ok: false; error: string } {
  const shape = "OAUTHBEARER's client response is n,,\\x01auth=Bearer <token>\\x01\\x01 (RFC 7628)";
  const text = new TextDecoder().decode(bytes);
  const match = /^([ny]),(?:a=[^,\x01]*)?,\x01(.*)\x01\x01$/s.exec(text);
  if (match === null) return { ok: false, error: shape };
  const pairs = new Map<string, string>();
  for (const pair of match[2]!.split("\x01")) {
    const equals = pair.indexOf("=");
    if (equals <= 0) return { ok: false, error: shape };
    pairs.set(pair.slice(0, equals), pair.slice(equals + 1));
  }
  const auth = /^bearer +(\S+)$/i.exec(pairs.get("auth") ?? "");
  if (auth === null) return { ok: false, error: `${shape}: no auth=Bearer <token>` };
  return { ok: true, token: auth[1]! };
}

async function tokenAuthenticate(token: string | undefined, refusal: string, context: GatewayRequestContext): Promise<SaslAuthenticateAnswer> {
  const lifetimeMs = context.sasl.maxReauthMs;
  const code = await context.sasl.authenticate(token, lifetimeMs > 0 ? lifetimeMs : undefined);
  return code === kafkaErrors.NONE ? saslAnswer(code, null, undefined, lifetimeMs) : saslAnswer(code, refusal);
}

export async function saslAuthenticate(request: { authBytes: Uint8Array }, context: GatewayRequestContext): Promise<SaslAuthenticateAnswer> {
  const mechanism = context.sasl.mechanism;
  if (mechanism === null) return saslAnswer(kafkaErrors.ILLEGAL_SASL_STATE, `SaslHandshake first, with one of ${saslMechanisms.join(", ")}`);
  if (mechanism === "SCRAM-SHA-256" || mechanism === "SCRAM-SHA-512") return scramAuthenticate(mechanism, request.authBytes, context);
  context.sasl.mechanism = null; // one message each: the authentication is over, whatever its outcome
  if (mechanism === "OAUTHBEARER") {
    const read = oauthBearerToken(request.authBytes);
    if (!read.ok) return saslAnswer(kafkaErrors.SASL_AUTHENTICATION_FAILED, read.error);
    return tokenAuthenticate(read.token, "the deployment refused the bearer token (OAUTHBEARER's bearer is a Tributary token)", context);
  }
  const parts = new TextDecoder().decode(request.authBytes).split("\u0000");
  if (parts.length !== 3) return saslAnswer(kafkaErrors.SASL_AUTHENTICATION_FAILED, "PLAIN takes authzid, username and password separated by NUL");
  const password = parts[2]!;
  return tokenAuthenticate(password === "" ? undefined : password, "the deployment refused the token (the SASL PLAIN password is a Tributary token)", context);
}
