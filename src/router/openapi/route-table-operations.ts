import { createTokenSchema } from "../../auth/token-schemas.ts";
import {
  clusterIdentitySchema,
  createdTokenSchema,
  healthResponseSchema,
  metricsJsonResponseSchema,
  openApiDocumentSchema,
  producerIdentitySchema,
  scramFinalResponseSchema,
  scramFirstResponseSchema,
  tokenListSchema,
  whoamiResponseSchema,
} from "../../protocol/response-schemas.ts";
import { faultRequestSchema, producerRequestSchema, scramFinalRequestSchema, scramFirstRequestSchema } from "../../protocol/schemas.ts";
import type { RouteDoc } from "./route-doc.ts";

/** Idempotent producers, scoped tokens, SCRAM, fault injection, health, metrics and this document (docs/api.md). */
export const operationRouteDocs: readonly RouteDoc[] = [
  {
    method: "post", path: "/v1/producers", tag: "records", auth: "token", resource: "cluster", objects: true,
    summary: "An idempotent producer's id and epoch (Kafka's InitProducerId)",
    description:
      "Needs `write` on any topic, or on the cluster (KIP-679). A token that may write no topic is refused with the 403 of the topic the body names (`topic`: the one the producer is about to write), else with the cluster's.",
    body: { json: producerRequestSchema, optional: true },
    responses: { 201: { description: "A producer id never handed out before, at epoch 0", json: producerIdentitySchema } },
    errors: ["TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "post", path: "/v1/tokens", tag: "tokens", auth: "token", resource: "cluster", objects: true,
    summary: "Create a scoped token (admin token only)",
    body: { json: createTokenSchema },
    responses: { 201: { description: "The token, with its secret (shown only here)", json: createdTokenSchema } },
    errors: ["SECURITY_DISABLED"],
  },
  {
    method: "get", path: "/v1/tokens", tag: "tokens", auth: "token", resource: "cluster", objects: true,
    summary: "List scoped tokens, oldest first, never a secret (admin token only)",
    responses: { 200: { description: "The tokens", json: tokenListSchema } },
  },
  {
    method: "delete", path: "/v1/tokens/:id", tag: "tokens", auth: "token", resource: "cluster", objects: true,
    summary: "Revoke a scoped token (admin token only)",
    responses: { 204: { description: "Revoked" } },
    errors: ["NOT_FOUND"],
  },
  // SCRAM exchanges a Kafka gateway relays (issue 35; docs/gateway.md).
  {
    method: "post", path: "/v1/scram/first", tag: "tokens", auth: "token", objects: true,
    summary: "A SCRAM exchange's first step: the client's first message, the server's (any valid token relays it)",
    description: "The username is a scoped token's id, the password the token. Refused exchanges are 401 SASL_AUTHENTICATION_FAILED, saying why.",
    query: [],
    body: { json: scramFirstRequestSchema },
    responses: { 200: { description: "server-first, and the exchange to send back with client-final", json: scramFirstResponseSchema } },
    errors: ["SASL_AUTHENTICATION_FAILED", "SECURITY_DISABLED"],
  },
  {
    method: "post", path: "/v1/scram/final", tag: "tokens", auth: "token", objects: true,
    summary: "A SCRAM exchange's last step: when the client's proof holds, server-final and a session token acting as the scoped token",
    query: [],
    body: { json: scramFinalRequestSchema },
    responses: { 200: { description: "server-final and the session token", json: scramFinalResponseSchema } },
    errors: ["SASL_AUTHENTICATION_FAILED", "SECURITY_DISABLED"],
  },
  {
    method: "post", path: "/v1/faults", tag: "operations", auth: "token", resource: "cluster", objects: true,
    summary: "Inject a fault into a replica (only with TRIBUTARY_FAULTS=1; admin token only)",
    description: "Without the Worker variable `TRIBUTARY_FAULTS=1` the path does not exist: 404 NOT_FOUND for every method.",
    body: { json: faultRequestSchema },
    responses: { 204: { description: "Set" } },
    errors: ["NOT_FOUND", "UNKNOWN_TOPIC_OR_PARTITION"],
  },
  {
    method: "get", path: "/v1/health", tag: "operations", auth: "none",
    summary: "Health, and whether the other routes need a token (no token; ignores query parameters)",
    responses: { 200: { description: "Healthy", json: healthResponseSchema } },
  },
  {
    method: "get", path: "/v1/metrics", tag: "operations", auth: "token", resource: "cluster", objects: true,
    summary: "Metrics: Prometheus text, or JSON with `Accept: application/json` (describe on the cluster)",
    query: [],
    responses: {
      200: {
        description: "The metrics in Prometheus's text exposition format, or their JSON twin (docs/metrics.md)",
        json: metricsJsonResponseSchema,
        other: { "text/plain; version=0.0.4": { type: "string" } },
      },
    },
  },
  {
    method: "get", path: "/v1/openapi.json", tag: "operations", auth: "none",
    summary: "This document: OpenAPI 3.1 for every route (no token)",
    description: "Needs no token: it describes the API, the same for every deployment, and holds no data (as GET /v1/health and docs/api.md).",
    query: [],
    responses: { 200: { description: "The OpenAPI 3.1 document", json: openApiDocumentSchema } },
  },
  // The deployment's cluster id (issue 16, the Kafka gateway).
  {
    method: "get", path: "/v1/cluster", tag: "operations", auth: "token", objects: true,
    summary: "The deployment's cluster id (any valid token)",
    description: "Made once by the controller and the same through every URL of the deployment; the Kafka gateway answers it in Metadata.",
    query: [],
    responses: { 200: { description: "The cluster id", json: clusterIdentitySchema } },
  },
  // The caller's kind of token (issue 31: the console says which token is in use).
  {
    method: "get", path: "/v1/whoami", tag: "tokens", auth: "token",
    summary: "The kind of token the request holds (admin, scoped with its id, write or read with its topic), never a secret (any valid token; without one: open, or none where a token is needed)",
    query: [],
    responses: { 200: { description: "The caller's principal", json: whoamiResponseSchema } },
  },
];
