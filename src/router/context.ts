import type { Principal } from "../auth/principal.ts";

/**
 * What every route handler sees besides the bindings: who is asking (set by the auth
 * middleware before any route runs), and the payload bytes the request produced or fetched
 * (set by the record routes, read by the quota middleware once the answer is ready).
 */
export interface RouterEnv {
  Bindings: Env;
  Variables: {
    principal: Principal;
    /** The credential the request holds ("open", "admin", a token's id or a minted token), for per-token bounds. */
    credential: string;
    producedBytes: number;
    fetchedBytes: number;
  };
}
