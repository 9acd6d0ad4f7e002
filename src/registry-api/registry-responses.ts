import type { Context } from "hono";
import { z } from "zod";
import { TributaryError } from "../errors.ts";
import { registryRequestBytesMax } from "../limits.ts";
import { RegistryError, type RegistryResult } from "../registry/registry-errors.ts";
import { readBodyBytes } from "../router/request-body.ts";
import type { RouterEnv } from "../router/context.ts";

/**
 * The schema registry's HTTP conventions (docs/schema-registry.md), as Confluent's serializers
 * expect them: answers in `application/vnd.schemaregistry.v1+json`, errors as
 * `{"error_code", "message"}` with Confluent's codes (src/registry/registry-errors.ts), request
 * bodies taken as JSON whatever JSON media type they name.
 */
export const registryMediaType = "application/vnd.schemaregistry.v1+json";

export function registryJson(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "Content-Type": registryMediaType } });
}

/** Tributary's errors met on the way (authentication, quotas, bodies) in Confluent's shape. */
function asRegistryError(error: unknown): RegistryError {
  if (error instanceof RegistryError) return error;
  if (error instanceof TributaryError) {
    switch (error.status) {
      case 401:
        return new RegistryError("UNAUTHORIZED", error.message);
      case 403:
        return new RegistryError("FORBIDDEN", error.message);
      case 429:
        return new RegistryError("QUOTA_EXCEEDED", error.message);
      case 503:
        return new RegistryError("UNAVAILABLE", error.message);
      default:
        return error.status < 500 ? new RegistryError("UNPROCESSABLE", error.message) : new RegistryError("STORE_ERROR", error.message);
    }
  }
  // A failure of the registry object itself (an exception, an overloaded or reset object): retriable.
  return new RegistryError("UNAVAILABLE", `the schema registry could not answer: ${(error as Error)?.message ?? String(error)}`);
}

export function registryErrorResponse(error: unknown): Response {
  const registryError = asRegistryError(error);
  const headers: Record<string, string> = { "Content-Type": registryMediaType };
  if (error instanceof TributaryError && error.status === 429) headers["Retry-After"] = "1";
  return new Response(JSON.stringify({ error_code: registryError.errorCode, message: registryError.message }), { status: registryError.status, headers });
}

export function unwrapRegistry<T>(result: RegistryResult<T>): T {
  if (result.ok) return result.value;
  throw RegistryError.fromValue(result.error);
}

const referenceSchema = z.object({ name: z.string(), subject: z.string(), version: z.number().int() });

/** A schema as registration, lookup and the compatibility test take it; other fields (metadata, ruleSet) are ignored. */
export const schemaRequestSchema = z.object({
  schema: z.string(),
  schemaType: z.string().nullish().transform((value) => value ?? undefined),
  references: z.array(referenceSchema).nullish().transform((value) => value ?? undefined),
  id: z.number().int().nullish().transform((value) => value ?? undefined),
  version: z.number().int().nullish().transform((value) => value ?? undefined),
});

export const configRequestSchema = z.object({ compatibility: z.unknown() });
export const modeRequestSchema = z.object({ mode: z.unknown() });

/** A JSON body of the shape: 422 (Confluent's answer to a body it cannot take) otherwise. */
export async function registryBody<Schema extends z.ZodType>(c: Context<RouterEnv>, schema: Schema): Promise<z.infer<Schema>> {
  const bytes = await readBodyBytes(c.req.raw, { maxBytes: registryRequestBytesMax });
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new RegistryError("UNPROCESSABLE", "the request body is not JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegistryError("UNPROCESSABLE", `the request body is not the shape this route takes: ${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** A query flag: "true" (any case) is true, anything else false, as Confluent reads them. */
export function flag(c: Context<RouterEnv>, name: string): boolean {
  return c.req.query(name)?.toLowerCase() === "true";
}
