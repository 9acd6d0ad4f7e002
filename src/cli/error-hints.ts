/**
 * The line under an error that says what to check (main.ts prints it): for a refused
 * credential, where the token comes from; for a refusal by the token's rules, the rule that
 * would allow the request, from what the server's 403 names (resource, name, operation).
 */
import type { ErrorCode } from "../client/index.ts";

/** When the 403 does not name what it refused (the admin token's routes: no rule allows them). */
const unnamedRefusals: Partial<Record<ErrorCode, string>> = {
  TOPIC_AUTHORIZATION_FAILED: "the token's rules do not allow this on the topic",
  GROUP_AUTHORIZATION_FAILED: "the token's rules do not allow this on the group",
  CLUSTER_AUTHORIZATION_FAILED: "the token's rules do not allow this (managing tokens takes the admin token)",
};

/** A 403's own fields, said by the message and the hint already: not printed again as details. */
export const authorizationFields: ReadonlySet<string> = new Set(["resource", "name", "operation"]);

export function isAuthorizationFailure(code: ErrorCode): boolean {
  return unnamedRefusals[code] !== undefined;
}

export function errorHint(code: ErrorCode, data: Record<string, unknown>): string | undefined {
  if (code === "UNAUTHENTICATED") return "the token (--token or TRIBUTARY_TOKEN) is missing, unknown, expired or revoked";
  if (!isAuthorizationFailure(code)) return undefined;
  const { resource, name, operation } = data;
  if (typeof resource !== "string" || typeof name !== "string" || typeof operation !== "string") return unnamedRefusals[code];
  return `the token needs a rule such as --rule ${resource}:${name}:literal:${operation} (tokens are created with the admin token: tributary tokens create)`;
}
