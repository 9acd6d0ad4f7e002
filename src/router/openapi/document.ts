import { z } from "zod";
import { errorTable, type ErrorCode } from "../../errors.ts";
import { fetchHeaders, recordBatchContentType } from "../../protocol/content-types.ts";
import { errorBodySchema } from "../../protocol/response-schemas.ts";
import { queryParameters } from "./query-parameters.ts";
import { openApiPath, pathParameters, type ResponseDoc, type RouteDoc } from "./route-doc.ts";
import { groupRouteDocs } from "./route-table-groups.ts";
import { operationRouteDocs } from "./route-table-operations.ts";
import { topicRouteDocs } from "./route-table-topics.ts";
// Share groups (issue 15).
import { shareGroupRouteDocs } from "./route-table-share-groups.ts";
import { subscriptionRouteDocs } from "./route-table-subscriptions.ts";
import { transactionRouteDocs } from "./route-table-transactions.ts";

/** Every route of the HTTP API (the app's routes, and GET /v1/metrics). */
export const routeDocs: readonly RouteDoc[] = [...topicRouteDocs, ...groupRouteDocs, ...operationRouteDocs, ...shareGroupRouteDocs,
  ...subscriptionRouteDocs, ...transactionRouteDocs];

type JsonSchema = Record<string, unknown>;

const forbidden = {
  topic: "TOPIC_AUTHORIZATION_FAILED",
  group: "GROUP_AUTHORIZATION_FAILED",
  cluster: "CLUSTER_AUTHORIZATION_FAILED",
  transactionalId: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
} as const satisfies Record<string, ErrorCode>;

/**
 * The error codes a route answers (docs/api.md, Errors): its own, and those every route of its
 * kind does — 400 INVALID_REQUEST (a query parameter it does not take, a malformed body or
 * parameter; health ignores its query), 401 and 429 (a token's quota) wherever a token is
 * needed, the 403 of the resource it checks, 503s of an object that is reset or busy where it
 * calls one, and 500 anywhere.
 */
export function errorCodesOf(route: RouteDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.path === "/v1/health" ? [] : ["INVALID_REQUEST"]);
  if (route.auth !== "none") codes.add("UNAUTHENTICATED").add("THROTTLING_QUOTA_EXCEEDED");
  if (route.resource) codes.add(forbidden[route.resource]);
  if (route.objects) codes.add("REQUEST_TIMED_OUT").add("BROKER_BUSY");
  for (const code of route.errors ?? []) codes.add(code);
  codes.add("UNKNOWN_SERVER_ERROR");
  return [...codes];
}

/**
 * A zod schema's JSON Schema (draft 2020-12, OpenAPI 3.1's dialect): requests as the router
 * accepts them (`input`: defaults shown, optional fields not required), answers as it builds
 * them (`output`: objects closed). A custom or transformed schema zod cannot describe must
 * carry its JSON Schema in its metadata (`.meta({type, ...})`, src/protocol/schemas.ts);
 * one that does not is an error here, never a silent `{}`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // A `.meta()` copy's parent is the schema it was made from, visited too: described by its copy.
  const described = new Set<z.core.$ZodType>();
  const undescribed: z.core.$ZodType[] = [];
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      if (!isOpaque(zodSchema)) return;
      if (jsonSchema.type === undefined) undescribed.push(zodSchema);
      else described.add(zodSchema._zod.parent ?? zodSchema);
    },
  });
  if (undescribed.some((opaque) => !described.has(opaque))) {
    throw new Error("a custom or transformed schema has no JSON Schema: give it one with .meta({ type, ... })");
  }
  return json;
}

/** A schema zod describes as anything: a custom check, or a transform of what it parsed. */
function isOpaque(schema: z.core.$ZodType): boolean {
  const def = schema._zod.def;
  return def.type === "custom" || def.type === "transform" || (def.type === "pipe" && (def as z.core.$ZodPipeDef).out._zod.def.type === "transform");
}

const retryAfterHeader = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } } };
const binaryBody = { schema: { type: "string", contentMediaType: recordBatchContentType } };

function errorResponses(route: RouteDoc): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = errorTable[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(", "),
      ...(status === 429 || status === 503 ? { headers: retryAfterHeader } : {}),
      content: { "application/json": { schema: jsonSchemaOf(errorBodySchema(codes), "output") } },
    };
  }
  return responses;
}

function successResponse(answer: ResponseDoc): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (answer.json) content["application/json"] = { schema: jsonSchemaOf(answer.json, "output") };
  if (answer.recordBatches) content[recordBatchContentType] = binaryBody;
  if (answer.eventStream) content["text/event-stream"] = { schema: { type: "string" } };
  for (const [type, schema] of Object.entries(answer.other ?? {})) content[type] = { schema };
  const description = answer.eventStream ? `${answer.description}. SSE events: ${answer.eventStream}` : answer.description;
  const headers = answer.recordBatches
    ? Object.fromEntries(
        Object.values(fetchHeaders).map((name) => [name, { description: `${name.slice("Tributary-".length)} (binary fetch only)`, schema: { type: "integer" } }]),
      )
    : undefined;
  return { description, ...(headers ? { headers } : {}), ...(Object.keys(content).length > 0 ? { content } : {}) };
}

function requestBody(route: RouteDoc): Record<string, unknown> | undefined {
  if (!route.body) return undefined;
  if ("recordBatches" in route.body) return { required: true, content: { [recordBatchContentType]: binaryBody } };
  return { required: !route.body.optional, content: { "application/json": { schema: jsonSchemaOf(route.body.json, "input") } } };
}

function parameters(route: RouteDoc): unknown[] {
  const inPath = pathParameters(route.path).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: name === "partition" ? { type: "integer", minimum: 0 } : { type: "string", minLength: 1 },
  }));
  const inQuery = (route.query ?? []).map((name) => {
    const declared = queryParameters[name];
    if (!declared) throw new Error(`${route.method} ${route.path}: query parameter ${name} is not declared in query-parameters.ts`);
    return { name, in: "query", required: false, description: declared.description, schema: declared.schema };
  });
  return [...inPath, ...inQuery];
}

const securityOf = { none: [], token: [{ bearerToken: [] }], streaming: [{ bearerToken: [] }, { accessToken: [] }] };

function operation(route: RouteDoc): Record<string, unknown> {
  const body = requestBody(route);
  const success = Object.fromEntries(Object.entries(route.responses).map(([status, answer]) => [status, successResponse(answer)]));
  return {
    operationId: `${route.method}${openApiPath(route.path).replace(/[{}]/g, "").split(/[/.-]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("")}`,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: securityOf[route.auth],
    parameters: parameters(route),
    ...(body ? { requestBody: body } : {}),
    // Every served path answers a method it is not served with 405 (src/router/allowed-methods.ts):
    // listed under each of its operations, as OpenAPI has no responses of a path.
    responses: { ...success, ...errorResponses(route), "405": { $ref: "#/components/responses/MethodNotAllowed" } },
  };
}

const description = `Tributary's HTTP API: Apache Kafka's model on Cloudflare Workers (docs/api.md).

- Authentication: with the \`TRIBUTARY_ADMIN_TOKEN\` secret set, every route but \`GET /v1/health\`, \`GET /v1/openapi.json\` and CORS preflight needs \`Authorization: Bearer <token>\` (the admin token, a scoped, write or read token); streaming reads may carry it as \`?access_token=\`. Without the secret (local development) every request is allowed.
- Errors: \`{"error": {"code", "message", ...data}}\` with the status of the error table; 429 and 503 carry \`Retry-After\`.
- A served path requested with another method is \`405 METHOD_NOT_ALLOWED\` with \`Allow\` (and \`error.allow\`); a path no route serves is \`404 NOT_FOUND\`. Both come after authentication.
- A route takes only the query parameters listed for it: any other, or one given twice, is \`400 INVALID_REQUEST\`.`;

/** The OpenAPI 3.1 document of every route in the table. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeDocs) {
    const path = (paths[openApiPath(route.path)] ??= {});
    path[route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Tributary HTTP API", version: "1", description },
    servers: [{ url: "/" }],
    tags: [
      { name: "topics", description: "Create, describe, alter and delete topics" },
      { name: "records", description: "Produce, fetch, offsets and streaming reads" },
      { name: "groups", description: "Consumer groups (KIP-848): membership, poll, offsets" },
      { name: "tokens", description: "Scoped tokens and browser write and read tokens" },
      { name: "operations", description: "Health, metrics, fault injection and this document" },
      // Push subscriptions (route-table-subscriptions.ts)
      { name: "subscriptions", description: "Push subscriptions: Tributary delivers to a webhook or a Worker" },
      // Transactions (route-table-transactions.ts)
      { name: "transactions", description: "Transactions: a transactional producer's coordinator (Kafka's KIP-98, with KIP-890's epoch bump)" },
    ],
    security: [{ bearerToken: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "The admin token, a scoped token (trb_…), a write token (trw_…) or a read token (trr_…)" },
        accessToken: { type: "apiKey", in: "query", name: "access_token", description: "Streaming reads only (SSE, WebSocket): the token in the query, for browsers; use a short-lived read token" },
      },
      responses: {
        MethodNotAllowed: {
          description: "METHOD_NOT_ALLOWED: this path requested with a method it is not served with (Allow lists those it is)",
          headers: { Allow: { description: "The methods the path is served with", schema: { type: "string" } } },
          content: { "application/json": { schema: jsonSchemaOf(errorBodySchema(["METHOD_NOT_ALLOWED"]), "output") } },
        },
      },
    },
  };
}
