/**
 * Who the console is, pure: what the server needs (`GET /v1/whoami` without a token), what
 * kind of token the session holds (`GET /v1/whoami`) as the header shows it — its kind and a
 * scoped token's id, never any of its secret — and what that token may do, so a page offers
 * only what the API would allow. The API still decides; this only leaves out buttons that
 * could only be refused.
 */
import { allows, allowsAny, clusterResourceName, type Operation, type ResourceType, type Rule } from "../../src/auth/acl.ts";

/** `GET /v1/whoami` (docs/api.md, Tokens and authorization). */
export interface Whoami {
  kind: "open" | "admin" | "scoped" | "write" | "read";
  tokenId?: string;
  mintedFrom?: string;
  topic?: string;
  rules?: Rule[];
  expiresAt?: number | null;
}

export type Identity =
  | { kind: "loading" }
  /** The server needs a token and none is typed in. */
  | { kind: "no-token" }
  /** The token typed in is not valid here (401). */
  | { kind: "refused" }
  /** A server too old to say (no `/v1/whoami`): assume the token may, the API decides. */
  | { kind: "unknown" }
  | Whoami;

/** The header's words for the token in use. */
export function describeIdentity(identity: Identity): string {
  switch (identity.kind) {
    case "loading": return "Checking the token…";
    case "no-token": return "No token";
    case "refused": return "Token refused by the server";
    case "unknown": return "Token in use";
    case "open": return "Open mode: no token needed";
    case "admin": return "Admin token";
    case "scoped": return `Scoped token ${identity.tokenId ?? ""}`.trim();
    case "write": return `Write token for ${identity.topic ?? "one topic"}`;
    case "read": return `Read token for ${identity.topic ?? "one topic"}`;
  }
}

/** The token field's placeholder: what this server needs, as its health says. */
export function tokenPlaceholder(tokenRequired: boolean | undefined): string {
  if (tokenRequired === true) return "this server needs a token";
  if (tokenRequired === false) return "none needed: open mode";
  return "a token, if the server needs one";
}

/** Whether the session may do `operation` on a resource (false until it is known). */
export function identityMay(identity: Identity, resource: ResourceType, name: string, operation: Operation): boolean {
  switch (identity.kind) {
    case "open": case "admin": case "unknown": return true;
    case "scoped": case "write": case "read": return allows(identity.rules ?? [], resource, name, operation);
    default: return false;
  }
}

/** Whether the session may create some topic: `create` on the cluster, or on any topic name or prefix. */
export function identityMayCreateTopics(identity: Identity): boolean {
  if (identityMay(identity, "cluster", clusterResourceName, "create")) return true;
  return (identity.kind === "scoped" || identity.kind === "write" || identity.kind === "read") && allowsAny(identity.rules ?? [], "topic", "create");
}

/** Whether the session is the admin (or an open deployment's, where everyone is). */
export function identityIsAdmin(identity: Identity): boolean {
  return identity.kind === "admin" || identity.kind === "open" || identity.kind === "unknown";
}
