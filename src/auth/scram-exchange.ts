/**
 * The deployment's side of a SCRAM exchange that a Kafka gateway relays (docs/gateway.md,
 * docs/api.md "SCRAM"): two HTTP calls, one per client message, and no state kept between them.
 * The first answers server-first and the exchange — what the last step needs (mechanism, token
 * id, the messages so far, an expiry) — signed with a key derived from the admin token, which
 * the gateway hands back with client-final. Nothing in it is secret (the client saw all of it);
 * the keys the proof is checked with are read from the controller at each step and never leave
 * the deployment. Pure: the routes (src/router/routes/scram.ts) bring the credential and the clock.
 *
 * Which token a SCRAM username names: a scoped token's id (16 hex digits, `id` of POST
 * /v1/tokens); the password is the whole token. The admin token, write, read and session tokens
 * have no SCRAM credentials (PLAIN and OAUTHBEARER take them).
 */
import { authMessage, parseClientFinal, parseClientFirst, serverFinalMessage, serverFirstMessage, verifyClientProof, scramMechanisms, type Parsed, type ScramCredential, type ScramMechanism } from "./scram.ts";
import { isTokenId, signPayload, verifyPayload } from "./token-format.ts";
import { encodeBase64 } from "../protocol/base64.ts";
import { scramClientNonceLengthMax, scramExchangeTtlMs, scramServerNonceBytes } from "../limits.ts";

/** What an exchange carries from its first step to its last. */
export interface ScramExchange {
  mechanism: ScramMechanism;
  tokenId: string;
  gs2Header: string;
  clientFirstBare: string;
  serverFirst: string;
  expiresAt: number;
}

const utf8 = new TextEncoder();

/** The scoped token's id a client-first message names, and the message read; or why it cannot be served. */
export function readClientFirst(text: string): Parsed<{ tokenId: string; gs2Header: string; bare: string; nonce: string }> {
  const parsed = parseClientFirst(text, scramClientNonceLengthMax);
  if (!parsed.ok) return parsed;
  const { username, gs2Header, bare, nonce, extensions } = parsed.value;
  if (extensions.get("tokenauth") === "true") {
    return { ok: false, error: "delegation tokens (tokenauth=true) are not served: the SCRAM username is a scoped token's id, the password the token" };
  }
  if (!isTokenId(username)) {
    return {
      ok: false,
      error: `the SCRAM username is a scoped token's id (16 hex digits, the "id" POST /v1/tokens answered), not ${JSON.stringify(username.slice(0, 64))}; the admin token and write, read and session tokens have no SCRAM credentials: use PLAIN or OAUTHBEARER with them`,
    };
  }
  return { ok: true, value: { tokenId: username, gs2Header, bare, nonce } };
}

/** Step one: server-first for the client's nonce and the token's credential, and the exchange to seal. */
export function startExchange(
  mechanism: ScramMechanism,
  clientFirst: { tokenId: string; gs2Header: string; bare: string; nonce: string },
  credential: ScramCredential,
  now: number,
): { serverFirst: string; exchange: ScramExchange } {
  const serverFirst = serverFirstMessage(`${clientFirst.nonce}${encodeBase64(crypto.getRandomValues(new Uint8Array(scramServerNonceBytes)))}`, credential.salt, credential.iterations);
  const exchange = { mechanism, tokenId: clientFirst.tokenId, gs2Header: clientFirst.gs2Header, clientFirstBare: clientFirst.bare, serverFirst, expiresAt: now + scramExchangeTtlMs };
  return { serverFirst, exchange };
}

export function sealExchange(exchange: ScramExchange, adminToken: string): Promise<string> {
  const { mechanism, tokenId, gs2Header, clientFirstBare, serverFirst, expiresAt } = exchange;
  return signPayload("scram exchange", { m: mechanism, u: tokenId, g: gs2Header, b: clientFirstBare, s: serverFirst, e: expiresAt }, adminToken);
}

/** The exchange a sealed text holds when it was sealed under this admin token and has not expired. */
export async function openExchange(text: string, adminToken: string, now: number): Promise<ScramExchange | undefined> {
  const value = (await verifyPayload("scram exchange", text, adminToken)) as Record<string, unknown> | undefined;
  if (value === undefined || typeof value.m !== "string" || !Object.hasOwn(scramMechanisms, value.m)) return undefined;
  const { u, g, b, s, e } = value;
  if (typeof u !== "string" || typeof g !== "string" || typeof b !== "string" || typeof s !== "string" || typeof e !== "number" || e <= now) return undefined;
  return { mechanism: value.m as ScramMechanism, tokenId: u, gs2Header: g, clientFirstBare: b, serverFirst: s, expiresAt: e };
}

/**
 * The last step: server-final when the client-final message continues this exchange and its
 * proof holds against the credential; else why not.
 */
export async function finishExchange(exchange: ScramExchange, clientFinal: string, credential: ScramCredential): Promise<Parsed<string>> {
  const parsed = parseClientFinal(clientFinal);
  if (!parsed.ok) return parsed;
  if (parsed.value.channelBinding !== encodeBase64(utf8.encode(exchange.gs2Header))) {
    return { ok: false, error: "SCRAM client-final message: its channel binding (c=) is not the client-first's gs2 header" };
  }
  // Kafka's broker takes a nonce that ends with server-first's (librdkafka 2.x sends its own nonce
  // in front of it once more), and so does this: the proof covers server-first, with its nonce, anyway.
  const combined = /^r=([^,]*)/.exec(exchange.serverFirst)?.[1];
  if (combined === undefined || !parsed.value.nonce.endsWith(combined)) return { ok: false, error: "SCRAM client-final message: its nonce is not the one server-first answered" };
  const message = authMessage(exchange.clientFirstBare, exchange.serverFirst, parsed.value.withoutProof);
  const signature = await verifyClientProof(scramMechanisms[exchange.mechanism], credential, message, parsed.value.proof);
  if (signature === undefined) {
    return { ok: false, error: `the SCRAM proof does not hold: the password is not the token whose id is ${exchange.tokenId}` };
  }
  return { ok: true, value: serverFinalMessage(signature) };
}
