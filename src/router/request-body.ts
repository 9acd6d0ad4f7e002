import type { z } from "zod";
import { TributaryError } from "../errors.ts";

/** The error for a body over its bound: `INVALID_REQUEST` for admin bodies, `RECORD_LIST_TOO_LARGE` for produce. */
export type BodyBound = { maxBytes: number; code?: "INVALID_REQUEST" | "RECORD_LIST_TOO_LARGE" };

function tooLarge(bound: BodyBound): TributaryError {
  return new TributaryError(bound.code ?? "INVALID_REQUEST", `the request body exceeds ${bound.maxBytes} bytes`);
}

/**
 * Reads a request body of at most `maxBytes`, refusing a larger one before or while reading
 * it. A body with a Content-Length (the runtime holds it to that length) is read in one
 * piece; one without is counted as it streams in.
 */
export async function readBodyBytes(request: Request, bound: BodyBound): Promise<Uint8Array> {
  const { maxBytes } = bound;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge(bound);
  if (!request.body) return new Uint8Array(0);
  if (Number.isSafeInteger(declared)) return new Uint8Array(await request.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(bound);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Parses a JSON body against a schema: malformed JSON or a wrong shape is 400 INVALID_REQUEST.
 * With `optional`, an empty body counts as `{}`.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  bound: BodyBound & { optional?: boolean },
): Promise<z.infer<Schema>> {
  return parseJsonBody(await readBodyBytes(request, bound), schema, bound);
}

/**
 * readJsonBody for a body already read (a caller that also needs its length). `usual`, for a
 * hot route, checks the body's usual shape by hand and answers undefined for anything else,
 * which the schema then judges (its verdicts and messages).
 */
export function parseJsonBody<Schema extends z.ZodType>(
  bytes: Uint8Array,
  schema: Schema,
  options: { optional?: boolean; usual?: (json: unknown) => z.infer<Schema> | undefined } = {},
): z.infer<Schema> {
  let json: unknown;
  try {
    json = options.optional && bytes.byteLength === 0 ? {} : JSON.parse(utf8.decode(bytes));
  } catch {
    throw new TributaryError("INVALID_REQUEST", "the request body is not valid JSON");
  }
  const usual = options.usual?.(json);
  if (usual !== undefined) return usual;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new TributaryError("INVALID_REQUEST", `invalid request${where}: ${issue?.message ?? "bad shape"}`);
  }
  return parsed.data;
}
