import type { MiddlewareHandler } from "hono";
import { allows } from "../auth/acl.ts";
import type { Principal } from "../auth/principal.ts";
import { adminTokenFingerprint, importTagKey, isWriteToken, parseScopedToken, verifyWriteToken } from "../auth/token-format.ts";
import { TributaryError } from "../errors.ts";
import { bearerTokenLengthMax } from "../limits.ts";
import { controllerStub } from "../objects/stubs.ts";
import type { TokenGrant } from "../objects/token-registry.ts";
import type { RouterEnv } from "./context.ts";
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
 * A write token (docs/api.md): its signature, its expiry, and the token it was minted from,
 * which must still be live and still allow writing the topic — revoking that token voids its
 * write tokens within the cache's seconds. The write token's rules are that one topic's write.
 */
async function writeTokenPrincipal(env: Env, token: string, adminToken: string, now: number): Promise<Principal> {
  const claims = await verifyWriteToken(token, adminToken);
  if (claims === undefined || claims.expiresAt <= now) throw unauthenticated();
  let quotas = {};
  let expiresAt = claims.expiresAt;
  if (claims.parent !== "admin") {
    const fingerprint = await adminTokenFingerprint(adminToken);
    const parent = principalOf(await grants.get(`id:${fingerprint}:${claims.parent}`, now, () => controllerStub(env).tokenGrant(claims.parent, fingerprint)), now);
    if (parent.kind !== "token" || !allows(parent.rules, "topic", claims.topic, "write")) throw unauthenticated();
    quotas = parent.quotas;
    expiresAt = Math.min(expiresAt, parent.expiresAt ?? Infinity);
  }
  const rules = [{ resource: "topic" as const, name: claims.topic, patternType: "literal" as const, operations: ["write" as const] }];
  return { kind: "token", tokenId: claims.parent, rules, expiresAt, quotas };
}

async function resolvePrincipal(env: Env, token: string, adminToken: string): Promise<Principal> {
  const now = Date.now();
  if (secretsEqual(token, adminToken)) return { kind: "admin" };
  if (isWriteToken(token)) return writeTokenPrincipal(env, token, adminToken, now);
  const scoped = await parseScopedToken(token, await tokenTagKey(env));
  if (scoped === undefined) throw unauthenticated();
  // Bound to the admin token it was created under: one made before this one, or while none was set, is refused.
  const fingerprint = await adminTokenFingerprint(adminToken);
  const key = `token:${fingerprint}:${scoped.id}:${scoped.secretHash}`;
  const grant = await grants.get(key, now, () => controllerStub(env).authenticate(scoped.id, scoped.secretHash, fingerprint));
  return principalOf(grant, now);
}

/**
 * Authentication (API.md, Conventions and Tokens): with the `TRIBUTARY_ADMIN_TOKEN` secret
 * set, every /v1 request but health and CORS preflight needs `Authorization: Bearer <token>`
 * — the admin token, a scoped token or a write token — and the request carries its principal
 * to the routes, which authorize it (src/router/authorize.ts). Without the secret (local
 * development) every request is allowed and a warning is logged once.
 */
export function authentication(): MiddlewareHandler<RouterEnv> {
  return async function authentication(c, next) {
    if (c.req.method === "OPTIONS" || c.req.path === "/v1/health") return next();
    const adminToken = c.env.TRIBUTARY_ADMIN_TOKEN;
    if (!adminToken) {
      if (!warnedOpen) {
        warnedOpen = true;
        console.warn("TRIBUTARY_ADMIN_TOKEN is not set: every request is allowed (local development only)");
      }
      c.set("principal", { kind: "open" });
      return next();
    }
    const token = bearerToken(c.req.header("authorization"));
    if (token === "") throw unauthenticated();
    c.set("principal", await resolvePrincipal(c.env, token, adminToken));
    return next();
  };
}
