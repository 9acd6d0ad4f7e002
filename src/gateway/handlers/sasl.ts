/**
 * SASL: SaslHandshake (v1) chooses PLAIN, the one mechanism; SaslAuthenticate takes PLAIN's
 * `authzid NUL username NUL password` and makes the password — a Tributary token — this
 * connection's credentials, once the deployment accepted it. An empty password keeps the
 * gateway's own `--token`. The username is not checked (a token names its own rules).
 */
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";

const mechanisms = ["PLAIN"];

export async function saslHandshake(request: { mechanism: string }, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  if (!mechanisms.includes(request.mechanism)) return { errorCode: kafkaErrors.UNSUPPORTED_SASL_MECHANISM, mechanisms };
  context.sasl.mechanism = request.mechanism;
  return { errorCode: kafkaErrors.NONE, mechanisms };
}

export async function saslAuthenticate(request: { authBytes: Uint8Array }, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const answer = (errorCode: number, errorMessage: string | null) => ({ errorCode, errorMessage, authBytes: new Uint8Array(0), sessionLifetimeMs: 0n });
  if (context.sasl.mechanism !== "PLAIN") return answer(kafkaErrors.ILLEGAL_SASL_STATE, "SaslHandshake with PLAIN first");
  const parts = new TextDecoder().decode(request.authBytes).split("\u0000");
  if (parts.length !== 3) return answer(kafkaErrors.SASL_AUTHENTICATION_FAILED, "PLAIN takes authzid, username and password separated by NUL");
  const password = parts[2]!;
  const code = await context.sasl.authenticate(password === "" ? undefined : password);
  return code === kafkaErrors.NONE ? answer(code, null) : answer(code, "the deployment refused the token (the SASL password is a Tributary token)");
}
