import type { MiddlewareHandler } from "hono";
import { allows, type Operation } from "../auth/acl.ts";
import type { Principal } from "../auth/principal.ts";
import {
  adminTokenFingerprint,
  importTagKey,
  isReadToken,
  isSessionToken,
  isWriteToken,
  parseScopedToken,
  verifyReadToken,
  verifySessionToken,
  verifyWriteToken,
  type SessionTokenClaims,
  type WriteTokenClaims,
} from "../auth/token-format.ts";
import { TributaryError } from "../errors.ts";
import { bearerTokenLengthMax } from "../limits.ts";
import { controllerStub } from "../contracts/stubs.ts";
import type { TokenGrant } from "../contracts/controller-api.ts";
import type { RouterEnv } from "./context.ts";
import { accessTokenParam, isStreamingRead } from "./streams/streaming-read.ts";
import { TokenCache } from "./token-cache.ts";

const utf8 = new TextEncoder();

/** Compares two secrets in time that depends only on their lengths, not on where they differ. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = utf8.encode(given);
  const b = utf8.encode(expected);
  let difference = a.length ^ b.length;
  for (let index = 0; index < b.length; index++) difference |= (a[index % Math.max(a.length, 1)] ?? 0) ^ b[index]!;
  return difference === 0;
}

let warnedOpen = false;
const grants = new TokenCache();
let tagKey: Promise<CryptoKey> | undefined;

/** The controller's tag key, asked once per isolate (it never changes); a failed ask is asked again. */
function tokenTagKey(env: Env): Promise<CryptoKey> {
  if (tagKey === undefined) {
    const asked = controllerStub(env).tokenTagKey().then((raw) => importTagKey(new Uint8Array(raw)));
    tagKey = asked;
    asked.catch(() => {
      if (tagKey === asked) tagKey = undefined;
    });
  }
  return tagKey;
}

function unauthenticated(): TributaryError {
  return new TributaryError("UNAUTHENTICATED", "a valid bearer token is required");
}

function bearerToken(header: string | undefined): string {
  if (header === undefined || header.length > bearerTokenLengthMax + "Bearer ".length || !header.startsWith("Bearer ")) return "";
  return header.slice("Bearer ".length).trim();
}

function principalOf(grant: TokenGrant | null, now: number): Principal {
  if (grant === null || (grant.expiresAt !== null && grant.expiresAt <= now)) throw unauthenticated();
  return { kind: "token", tokenId: grant.tokenId, rules: grant.rules, expiresAt: grant.expiresAt, quotas: grant.quotas };
}

/**
 * A write or read token (docs/api.md): its signature, its expiry, and the token it was minted
 * from, which must still be live and still allow the operation on the topic — revoking that
 * token voids the tokens minted from it within the cache's seconds. The minted token's rules
 * are that one topic's write (a write token), or its read and describe (a read token).
 */
async function topicTokenPrincipal(
  env: Env,
  claims: WriteTokenClaims | undefined,
  minted: "write" | "read",
  adminToken: string,
  now: number,
): Promise<Principal> {
  if (claims === undefined || claims.expiresAt <= now) throw unauthenticated();
  const operations: Operation[] = minted === "write" ? ["write"] : ["read", "describe"];
  let quotas = {};
  let expiresAt = claims.expiresAt;
  if (claims.parent !== "admin") {
    const fingerprint = await adminTokenFingerprint(adminToken);
    const parent = principalOf(await grants.get(`id:${fingerprint}:${claims.parent}`, now, () => controllerStub(env).tokenGrant(claims.parent, fingerprint)), now);
    if (parent.kind !== "token" || !allows(parent.rules, "topic", claims.topic, operations[0]!)) throw unauthenticated();
    quotas = parent.quotas;
    expiresAt = Math.min(expiresAt, parent.expiresAt ?? Infinity);
  }
  const rules = [{ resource: "topic" as const, name: claims.topic, patternType: "literal" as const, operations }];
  return { kind: "token", tokenId: claims.parent, rules, expiresAt, quotas, minted };
}

/**
 * A session token (what a SCRAM exchange answers, docs/api.md): its signature, its expiry, and
 * the scoped token it acts as, which must still be live — revoking that token voids its session
 * tokens within the cache's seconds. It has that token's rules and quotas, and dies with it.
 */
async function sessionTokenPrincipal(env: Env, claims: SessionTokenClaims | undefined, adminToken: string, now: number): Promise<Principal> {
  if (claims === undefined || claims.expiresAt <= now) throw unauthenticated();
  const fingerprint = await adminTokenFingerprint(adminToken);
  const parent = principalOf(await grants.get(`id:${fingerprint}:${claims.parent}`, now, () => controllerStub(env).tokenGrant(claims.parent, fingerprint)), now);
  if (parent.kind !== "token") throw unauthenticated();
  return { ...parent, expiresAt: Math.min(claims.expiresAt, parent.expiresAt ?? Infinity) };
}

async function resolvePrincipal(env: Env, token: string, adminToken: string): Promise<Principal> {
  const now = Date.now();
  if (secretsEqual(token, adminToken)) return { kind: "admin" };
  if (isSessionToken(token)) return sessionTokenPrincipal(env, await verifySessionToken(token, adminToken), adminToken, now);
  if (isWriteToken(token)) return topicTokenPrincipal(env, await verifyWriteToken(token, adminToken), "write", adminToken, now);
  if (isReadToken(token)) return topicTokenPrincipal(env, await verifyReadToken(token, adminToken), "read", adminToken, now);
  const scoped = await parseScopedToken(token, await tokenTagKey(env));
  if (scoped === undefined) throw unauthenticated();
  // Bound to the admin token it was created under: one made before this one, or while none was set, is refused.
  const fingerprint = await adminTokenFingerprint(adminToken);
  const key = `token:${fingerprint}:${scoped.id}:${scoped.secretHash}`;
  const grant = await grants.get(key, now, () => controllerStub(env).authenticate(scoped.id, scoped.secretHash, fingerprint));
  return principalOf(grant, now);
}

/**
 * The bearer token of a request: the Authorization header, or — only for a streaming read
 * (which browsers open without headers) — `?access_token=`. Any other request carrying that
 * parameter is refused before anything else, as every route refuses a parameter it does not take.
 */
function requestToken(request: Request, header: string | undefined): string {
  const url = request.url;
  const search = url.indexOf("?");
  // Parsed only when the name can be there (written out, or percent-encoded): most requests carry no such thing.
  const mayHold = search >= 0 && (url.includes(accessTokenParam, search) || url.includes("%", search));
  const query = mayHold ? new URLSearchParams(url.slice(search + 1)) : undefined;
  if (!query?.has(accessTokenParam)) return bearerToken(header);
  if (!isStreamingRead(request)) {
    throw new TributaryError("INVALID_REQUEST", `unknown query parameter "${accessTokenParam}": only streaming reads (SSE, WebSocket) take a token in the query; send Authorization: Bearer`, { parameter: accessTokenParam });
  }
  if (header !== undefined) return bearerToken(header);
  const token = query.get(accessTokenParam)!;
  return token.length > bearerTokenLengthMax ? "" : token.trim();
}

/** Which credential a request holds, for bounds per token (streams): never logged, never sent anywhere. */
function credentialOf(principal: Principal, token: string): string {
  if (principal.kind !== "token") return principal.kind;
  return isWriteToken(token) || isReadToken(token) ? token : `token:${principal.tokenId}`;
}

/**
 * The paths whose GET needs no token: health, and the OpenAPI document (it describes the API,
 * the same for every deployment, and holds no data). Every other path's answers do.
 */
export const publicPaths: readonly string[] = ["/v1/health", "/v1/openapi.json"];

/**
 * Answered without a token too, as "no token" (`GET /v1/whoami`): a page asks it before it has
 * one, to learn whether the deployment needs one. A token it is given is checked as anywhere.
 */
export const identityPath = "/v1/whoami";

/**
 * Authentication (API.md, Conventions and Tokens): with the `TRIBUTARY_ADMIN_TOKEN` secret
 * set, every /v1 request but the public paths and CORS preflight needs `Authorization: Bearer <token>`
 * (or, on a streaming read, `?access_token=`) — the admin token, a scoped, write, read or
 * session token — and the request carries its principal to the routes, which authorize it
 * (src/router/authorize.ts). Without the secret (local development) every request is
 * allowed and a warning is logged once.
 */
export function authentication(): MiddlewareHandler<RouterEnv> {
  return async function authentication(c, next) {
    if (c.req.method === "OPTIONS" || publicPaths.includes(c.req.path)) return next();
    const token = requestToken(c.req.raw, c.req.header("authorization"));
    const adminToken = c.env.TRIBUTARY_ADMIN_TOKEN;
    if (!adminToken) {
      if (!warnedOpen) {
        warnedOpen = true;
        console.warn("TRIBUTARY_ADMIN_TOKEN is not set: every request is allowed (local development only)");
      }
      c.set("principal", { kind: "open" });
      c.set("credential", "open");
      return next();
    }
    if (token === "" && c.req.path === identityPath) return next(); // the route answers "none"
    if (token === "") throw unauthenticated();
    const principal = await resolvePrincipal(c.env, token, adminToken);
    c.set("principal", principal);
    c.set("credential", credentialOf(principal, token));
    return next();
  };
}
