import type { Rule } from "../auth/acl.ts";
import type { Quotas } from "../auth/principal.ts";
import type { ScramCredential } from "../auth/scram.ts";

/*
 * Answer shapes of the Controller (src/objects/controller.ts) that its callers name: its token
 * registry's (src/objects/token-registry.ts). Its topics' metadata is src/topics/topic-metadata.ts.
 */

/** A token as the admin lists it: never its secret. */
export interface TokenView {
  id: string;
  name: string | null;
  rules: Rule[];
  expiresAt: number | null;
  quotas: Quotas;
}

/** What a router needs to authorize a token's requests. */
export interface TokenGrant {
  tokenId: string;
  rules: Rule[];
  expiresAt: number | null;
  quotas: Quotas;
}

/** A token's SCRAM credential for one mechanism, with its grant; or why there is none (src/router/routes/scram.ts). */
export type ScramLookup =
  | { kind: "credential"; credential: ScramCredential; grant: TokenGrant }
  /** No live token with that id under this admin token (unknown, revoked, expired, or bound to another). */
  | { kind: "unknown" }
  /** A live token created before SCRAM credentials were kept. */
  | { kind: "none" };
