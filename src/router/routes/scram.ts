import { Hono } from "hono";
import type { ScramCredential, ScramMechanism } from "../../auth/scram.ts";
import { finishExchange, openExchange, readClientFirst, sealExchange, startExchange } from "../../auth/scram-exchange.ts";
import { adminTokenFingerprint, signSessionToken } from "../../auth/token-format.ts";
import { TributaryError } from "../../errors.ts";
import { adminRequestBytesMax, scramSessionTtlMsDefault } from "../../limits.ts";
import { controllerStub } from "../../contracts/stubs.ts";
import type { TokenGrant } from "../../contracts/controller-api.ts";
import { scramFinalRequestSchema, scramFirstRequestSchema } from "../../protocol/schemas.ts";
import { adminTokenFor } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

function refused(message: string): TributaryError {
  return new TributaryError("SASL_AUTHENTICATION_FAILED", message);
}

function orRefused<T>(parsed: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!parsed.ok) throw refused(parsed.error);
  return parsed.value;
}

/** The token's credential for the mechanism and its grant, read from the controller at each step; or the refusal saying why there is none. */
async function credentialOf(env: Env, tokenId: string, mechanism: ScramMechanism, adminToken: string): Promise<{ credential: ScramCredential; grant: TokenGrant }> {
  const lookup = await controllerStub(env).scramCredential(tokenId, mechanism, await adminTokenFingerprint(adminToken));
  if (lookup.kind === "unknown") throw refused(`no live scoped token has the id ${tokenId} (unknown, revoked or expired, or created under another admin token)`);
  if (lookup.kind === "none") {
    throw refused(`token ${tokenId} has no SCRAM credentials: it was created before the deployment kept them; create a new token (or use PLAIN or OAUTHBEARER with this one)`);
  }
  return lookup;
}

/**
 * SCRAM exchanges a Kafka gateway relays (docs/api.md, SCRAM; src/auth/scram-exchange.ts):
 * `POST /v1/scram/first` {mechanism, clientFirst} → {serverFirst, exchange}, then
 * `POST /v1/scram/final` {exchange, clientFinal, ttlMs?} → {serverFinal, token, expiresAt,
 * lifetimeMs}: when the client's proof holds, a session token that acts as the scoped token the
 * username named. The caller needs a valid token of its own (the gateway's), so that nobody
 * without one can make the controller look up ids; the client's credential is the SCRAM proof.
 * A refused exchange is 401 SASL_AUTHENTICATION_FAILED with what was wrong.
 */
export const scramRoutes = new Hono<RouterEnv>()
  .post("/first", async (c) => {
    routeQuery(c.req.url, []);
    const adminToken = adminTokenFor(c, "use SCRAM, whose users are scoped tokens");
    const body = await readJsonBody(c.req.raw, scramFirstRequestSchema, { maxBytes: adminRequestBytesMax });
    const clientFirst = orRefused(readClientFirst(body.clientFirst));
    const { credential } = await credentialOf(c.env, clientFirst.tokenId, body.mechanism, adminToken);
    const { serverFirst, exchange } = startExchange(body.mechanism, clientFirst, credential, Date.now());
    return c.json({ serverFirst, exchange: await sealExchange(exchange, adminToken) });
  })
  .post("/final", async (c) => {
    routeQuery(c.req.url, []);
    const adminToken = adminTokenFor(c, "use SCRAM, whose users are scoped tokens");
    const body = await readJsonBody(c.req.raw, scramFinalRequestSchema, { maxBytes: adminRequestBytesMax });
    const exchange = await openExchange(body.exchange, adminToken, Date.now());
    if (exchange === undefined) throw refused("the SCRAM exchange is not one this deployment started, or it expired (a minute after its first step): authenticate again");
    const { credential, grant } = await credentialOf(c.env, exchange.tokenId, exchange.mechanism, adminToken);
    const serverFinal = orRefused(await finishExchange(exchange, body.clientFinal, credential));
    const now = Date.now();
    const expiresAt = Math.min(now + (body.ttlMs ?? scramSessionTtlMsDefault), grant.expiresAt ?? Infinity);
    const token = await signSessionToken({ parent: exchange.tokenId, expiresAt }, adminToken);
    return c.json({ serverFinal, token, expiresAt, lifetimeMs: Math.max(1, expiresAt - now) });
  });
