import type { z } from "zod";
import type { ErrorCode } from "../../errors.ts";

/**
 * One route of the HTTP API as GET /v1/openapi.json describes it: the declarative table
 * (route-table-*.ts) the document is generated from (document.ts). Schemas are the zod
 * schemas the router validates requests with (src/protocol/schemas.ts, src/auth/token-schemas.ts)
 * and builds answers by (src/protocol/response-schemas.ts); the tests check the table against
 * the app (test/workers/openapi/) and the router's answers against the document (test/e2e/openapi-responses.test.ts).
 */
export interface RouteDoc {
  method: "get" | "post" | "patch" | "delete";
  /** hono's pattern, as `app.routes` lists it: `/v1/topics/:topic`. */
  path: string;
  tag: "topics" | "records" | "groups" | "tokens" | "operations"
    | "subscriptions" | "transactions";
  summary: string;
  description?: string;
  /**
   * `none`: never needs a token (health, this document); `token`: `Authorization: Bearer`
   * when the deployment has TRIBUTARY_ADMIN_TOKEN; `streaming`: as `token`, or `?access_token=`
   * on a streaming read (SSE, WebSocket).
   */
  auth: "none" | "token" | "streaming";
  /** The 403 a token without the right gets: the code of the resource type the route checks. */
  resource?: "topic" | "group" | "cluster" | "transactionalId";
  /** The query parameters the route takes (query-parameters.ts), exactly: any other is 400. */
  query?: readonly string[];
  /**
   * A route that serves several kinds of request by their headers (JSON, binary, SSE): the
   * query parameters each kind takes; `query` is then their union.
   */
  kinds?: readonly { kind: string; headers: Record<string, string>; query: readonly string[] }[];
  /** A JSON body (its schema, as the router parses it), or the binary transport's batches. */
  body?: { json: z.ZodType; optional?: boolean } | { recordBatches: true };
  /** Answers by status. */
  responses: Record<number, ResponseDoc>;
  /** Errors this route answers beyond the ones every route of its kind does (document.ts, errorCodesOf). */
  errors?: readonly ErrorCode[];
  /** Calls partitions or objects (503s of an unreachable, busy or moved partition). */
  objects?: boolean;
}

export interface ResponseDoc {
  description: string;
  /** A JSON body (its schema), absent for none. */
  json?: z.ZodType;
  /** The binary transport's batches, with the fetch headers. */
  recordBatches?: boolean;
  /** An SSE stream, whose events the description says. */
  eventStream?: string;
  /** Other content types: media type → a JSON Schema of the body. */
  other?: Record<string, Record<string, unknown>>;
}

/** A call to a partition's leader: it moved (the router retries once) or is being elected. */
export const leaderErrors = ["NOT_LEADER_OR_FOLLOWER", "LEADER_NOT_AVAILABLE"] as const satisfies readonly ErrorCode[];

/** `/v1/topics/:topic` → `/v1/topics/{topic}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:(\w+)/g, "{$1}");
}

/** The path parameters of a hono pattern, in order. */
export function pathParameters(honoPath: string): string[] {
  return [...honoPath.matchAll(/:(\w+)/g)].map((match) => match[1]!);
}
