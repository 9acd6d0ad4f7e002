import { signReadToken } from "../../auth/token-format.ts";
import { createReadTokenSchema } from "../../auth/token-schemas.ts";
import { readTokenTtlMsDefault } from "../../limits.ts";
import { mintedTokenRoute } from "../minted-tokens.ts";

/**
 * Browser read tokens (docs/api.md, "Read tokens for browsers"): may only read and describe
 * their topic — what a page streaming it (SSE, WebSocket, with `?access_token=`) holds.
 */
export const readTokenRoutes = mintedTokenRoute({
  segment: "read-tokens",
  operation: "read",
  bodySchema: createReadTokenSchema,
  ttlMsDefault: readTokenTtlMsDefault,
  sign: signReadToken,
});
