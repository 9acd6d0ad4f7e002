import { z } from "zod";
import { quotaRatePerSecondMax, tokenNameLengthMax, tokenRulesMax, readTokenTtlMsMax, writeTokenTtlMsMax } from "../limits.ts";
import { operations, patternTypes, resourceTypes } from "./acl.ts";

/** Request shapes of the token routes (API.md, Tokens; docs/api.md, Quotas and write tokens). */

export const ruleSchema = z.strictObject({
  resource: z.enum(resourceTypes),
  name: z.string().min(1).max(tokenNameLengthMax),
  patternType: z.enum(patternTypes),
  operations: z.array(z.enum(operations)).min(1).max(operations.length),
});

const rateSchema = z.number().int().positive().max(quotaRatePerSecondMax);

export const quotasSchema = z.strictObject({
  produceBytesPerSecond: rateSchema.optional(),
  fetchBytesPerSecond: rateSchema.optional(),
  requestsPerSecond: rateSchema.optional(),
});

export const createTokenSchema = z.strictObject({
  name: z.string().max(tokenNameLengthMax).optional(),
  rules: z.array(ruleSchema).max(tokenRulesMax),
  expiresAt: z.number().int().positive().optional(),
  quotas: quotasSchema.optional(),
});
export type CreateTokenRequest = z.infer<typeof createTokenSchema>;

export const createWriteTokenSchema = z.strictObject({
  ttlMs: z.number().int().positive().max(writeTokenTtlMsMax).optional(),
});

/** `POST /v1/topics/{topic}/read-tokens` (docs/api.md, Read tokens for browsers). */
export const createReadTokenSchema = z.strictObject({
  ttlMs: z.number().int().positive().max(readTokenTtlMsMax).optional(),
});
