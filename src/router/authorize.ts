import type { Context } from "hono";
import { allows, allowsAny, clusterResourceName, type Operation, type ResourceType } from "../auth/acl.ts";
import type { Principal } from "../auth/principal.ts";
import { TributaryError, type ErrorCode } from "../errors.ts";
import type { RouterEnv } from "./context.ts";

/**
 * Authorization (API.md, Tokens): each route asks, before it does any work, whether the
 * request's principal may do what it is about to do. The admin token and an open deployment
 * may do everything; a scoped token what its rules allow. A refusal names the resource type,
 * as Kafka's TOPIC_/GROUP_/CLUSTER_AUTHORIZATION_FAILED do, and says nothing of whether the
 * resource exists.
 */

/** The resources of /v1 routes; the schema registry's subjects answer its own 40301 (src/registry-api/). */
type V1Resource = Exclude<ResourceType, "subject">;

const failureCodes: Record<V1Resource, ErrorCode> = {
  topic: "TOPIC_AUTHORIZATION_FAILED",
  group: "GROUP_AUTHORIZATION_FAILED",
  cluster: "CLUSTER_AUTHORIZATION_FAILED",
  transactionalId: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
};

export function principalOf(c: Context<RouterEnv>): Principal {
  const principal = c.get("principal");
  // The auth middleware runs before every route; a route reached without it is a wiring bug.
  if (principal === undefined) throw new Error("no principal: the authentication middleware did not run");
  return principal;
}

export function may(principal: Principal, resource: ResourceType, name: string, operation: Operation): boolean {
  return principal.kind !== "token" || allows(principal.rules, resource, name, operation);
}

export function authorize(c: Context<RouterEnv>, resource: V1Resource, name: string, operation: Operation): void {
  if (!may(principalOf(c), resource, name, operation)) {
    throw new TributaryError(failureCodes[resource], `not authorized to ${operation} ${resource} ${JSON.stringify(name)}`, { resource, name, operation });
  }
}

export function authorizeTopics(c: Context<RouterEnv>, topics: Iterable<string>, operation: Operation): void {
  for (const topic of new Set(topics)) authorize(c, "topic", topic, operation);
}

/** Creating a topic: `create` on the topic, or on the cluster (any topic), as in Kafka. */
export function authorizeTopicCreation(c: Context<RouterEnv>, name: string): void {
  if (may(principalOf(c), "cluster", clusterResourceName, "create")) return;
  authorize(c, "topic", name, "create");
}

/**
 * Idempotent producer ids (Kafka's InitProducerId, KIP-679): `write` on the cluster or on any
 * topic. A token that may write no topic is refused with the 403 its produce would get: the
 * topic's, when the request names the topic it is about to write, else the cluster's.
 */
export function authorizeIdempotentWrite(c: Context<RouterEnv>, topic: string | undefined): void {
  const principal = principalOf(c);
  if (principal.kind !== "token" || allowsAny(principal.rules, "topic", "write")) return;
  if (may(principal, "cluster", clusterResourceName, "write")) return;
  if (topic !== undefined) authorize(c, "topic", topic, "write");
  authorize(c, "cluster", clusterResourceName, "write");
}

/**
 * Creating a token (scoped or write): only under an admin token. While none is set every
 * request is allowed, so a token would protect nothing, and it must not outlive that period
 * (docs/api.md): 400 SECURITY_DISABLED (Kafka's name for security features that are off).
 * Answers the admin token the new token is bound to.
 */
export function adminTokenFor(c: Context<RouterEnv>, what: string): string {
  const adminToken = c.env.TRIBUTARY_ADMIN_TOKEN;
  if (!adminToken) {
    throw new TributaryError("SECURITY_DISABLED", `set TRIBUTARY_ADMIN_TOKEN to ${what} (wrangler secret put TRIBUTARY_ADMIN_TOKEN; .dev.vars locally): without it every request is allowed, so a token would protect nothing`);
  }
  return adminToken;
}

/** Managing tokens and injecting faults: the admin token only (API.md). */
export function authorizeAdmin(c: Context<RouterEnv>, what: string): void {
  if (principalOf(c).kind === "token") throw new TributaryError("CLUSTER_AUTHORIZATION_FAILED", `only the admin token may ${what}`);
}
