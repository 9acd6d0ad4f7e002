import { signWriteToken } from "../../auth/token-format.ts";
import { createWriteTokenSchema } from "../../auth/token-schemas.ts";
import { writeTokenTtlMsDefault } from "../../limits.ts";
import { mintedTokenRoute } from "../minted-tokens.ts";

/** Browser write tokens (docs/api.md): may only produce to their topic. */
export const writeTokenRoutes = mintedTokenRoute({
  segment: "write-tokens",
  operation: "write",
  bodySchema: createWriteTokenSchema,
  ttlMsDefault: writeTokenTtlMsDefault,
  sign: signWriteToken,
});
