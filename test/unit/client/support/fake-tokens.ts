/**
 * The token side of the fake server (API.md, Tokens): the admin token, scoped tokens with
 * rules, browser write tokens, and the authorization of the routes the fake serves, by the
 * ACL model itself (src/auth/acl.ts). Enough for the client and the CLI to meet 401 and 403
 * as the router answers them; the router's own checks are tested in test/workers.
 */
import { allows, allowsAny, type Operation, type ResourceType, type Rule } from "../../../../src/auth/acl.ts";
import type { Quotas } from "../../../../src/auth/principal.ts";
import { apiError, json } from "./responses.ts";

export type FakePrincipal = { kind: "admin" } | { kind: "token"; id: string; rules: Rule[] };

interface FakeToken {
  id: string;
  name: string | null;
  rules: Rule[];
  expiresAt: number | null;
  quotas: Quotas;
}

const authorizationCodes: Record<ResourceType, string> = {
  topic: "TOPIC_AUTHORIZATION_FAILED",
  group: "GROUP_AUTHORIZATION_FAILED",
  cluster: "CLUSTER_AUTHORIZATION_FAILED",
  subject: "FORBIDDEN", // the schema registry answers its own 40301; the client never asks about subjects
  transactionalId: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
};

export class FakeTokens {
  /** By bearer string. */
  readonly #scoped = new Map<string, FakeToken>();
  /** Browser write (`trw_`) and read (`trr_`) tokens, by bearer string. */
  readonly #write = new Map<string, { parent: string; topic: string; expiresAt: number; operation: Operation }>();
  #nextId = 1;

  /** Who sent `bearer` when the admin token is `adminToken`; undefined: 401. */
  authenticate(bearer: string | null, adminToken: string, now = Date.now()): FakePrincipal | undefined {
    if (bearer === `Bearer ${adminToken}`) return { kind: "admin" };
    const token = bearer?.startsWith("Bearer ") ? bearer.slice("Bearer ".length) : "";
    const write = this.#write.get(token);
    if (write !== undefined) {
      const parent = write.parent === "admin" ? undefined : [...this.#scoped.values()].find((t) => t.id === write.parent);
      if (write.expiresAt <= now || (write.parent !== "admin" && parent === undefined)) return undefined;
      return { kind: "token", id: write.parent, rules: [{ resource: "topic", name: write.topic, patternType: "literal", operations: [write.operation] }] };
    }
    const scoped = this.#scoped.get(token);
    if (scoped === undefined || (scoped.expiresAt !== null && scoped.expiresAt <= now)) return undefined;
    return { kind: "token", id: scoped.id, rules: scoped.rules };
  }

  /** A 403 answer when `principal` may not do `operation` on the resource, else undefined. */
  refuse(principal: FakePrincipal, resource: ResourceType, name: string, operation: Operation): Response | undefined {
    if (principal.kind === "admin" || allows(principal.rules, resource, name, operation)) return undefined;
    return apiError(403, authorizationCodes[resource], `not authorized to ${operation} ${resource} ${JSON.stringify(name)}`, { resource, name, operation });
  }

  /** POST /v1/producers: write on any topic (KIP-679); refused as the named topic's write, else the cluster's. */
  refuseProducerId(principal: FakePrincipal, topic: string | undefined): Response | undefined {
    if (principal.kind === "admin" || allowsAny(principal.rules, "topic", "write")) return undefined;
    if (this.refuse(principal, "cluster", "tributary", "write") === undefined) return undefined;
    return this.refuse(principal, topic === undefined ? "cluster" : "topic", topic ?? "tributary", "write");
  }

  /** `/v1/tokens[/id]`: admin only. */
  route(method: string, id: string | undefined, principal: FakePrincipal, body: () => any): Response {
    if (principal.kind !== "admin") return apiError(403, "CLUSTER_AUTHORIZATION_FAILED", "only the admin token may manage tokens");
    if (id === undefined && method === "POST") {
      const { name = null, rules, expiresAt = null, quotas = {} } = body();
      if (!Array.isArray(rules)) return apiError(400, "INVALID_REQUEST", "rules: an array of rules");
      const created: FakeToken = { id: (this.#nextId++).toString(16).padStart(16, "0"), name, rules, expiresAt, quotas };
      const token = `trb_${created.id}_${crypto.randomUUID()}`;
      this.#scoped.set(token, created);
      return json(201, { ...created, token });
    }
    if (id === undefined && method === "GET") return json(200, { tokens: [...this.#scoped.values()] });
    if (id !== undefined && method === "DELETE") {
      const entry = [...this.#scoped].find(([, token]) => token.id === id);
      if (entry === undefined) return apiError(404, "NOT_FOUND", `no token ${id}`);
      this.#scoped.delete(entry[0]);
      return new Response(null, { status: 204 });
    }
    return apiError(404, "NOT_FOUND", `no route for ${method} /v1/tokens`);
  }

  /** POST /v1/topics/{topic}/write-tokens, once the caller's write on the topic is checked. */
  mintWriteToken(principal: FakePrincipal, topic: string, ttlMs = 600_000, now = Date.now(), operation: "write" | "read" = "write"): Response {
    const token = `${operation === "write" ? "trw" : "trr"}_${crypto.randomUUID()}`;
    const expiresAt = now + ttlMs;
    this.#write.set(token, { parent: principal.kind === "admin" ? "admin" : principal.id, topic, expiresAt, operation });
    return json(201, { token, topic, expiresAt });
  }
}
