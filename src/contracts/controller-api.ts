import type { Rule } from "../auth/acl.ts";
import type { Quotas } from "../auth/principal.ts";

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
