/**
 * Kafka's ACL model, allow rules only (API.md, Tokens): a scoped token holds rules, each
 * naming a resource type, a name or prefix, and the operations it allows. Pure: the router
 * asks `allows` for every request; nothing here knows HTTP or Durable Objects.
 */

/**
 * `subject`: a schema registry subject (docs/schema-registry.md), as Confluent's ACLs name it.
 * `transactionalId`: Kafka's TRANSACTIONAL_ID resource; `write` uses the id, `describe` sees it (issue 28).
 */
export const resourceTypes = ["topic", "group", "cluster", "subject", "transactionalId"] as const;
export type ResourceType = (typeof resourceTypes)[number];

export const operations = ["read", "write", "describe", "create", "alter", "delete"] as const;
export type Operation = (typeof operations)[number];

export const patternTypes = ["literal", "prefixed"] as const;
export type PatternType = (typeof patternTypes)[number];

export interface Rule {
  resource: ResourceType;
  /** A name (literal; "*" matches every name, as in Kafka) or the prefix of names (prefixed). */
  name: string;
  patternType: PatternType;
  operations: Operation[];
}

/** The one name of the cluster resource (Kafka's "kafka-cluster"); a cluster rule may also say "*". */
export const clusterResourceName = "tributary";

/**
 * Operations that imply `describe`, as in Kafka: whoever may read, write, alter or delete a
 * topic or group may also see it.
 */
const impliesDescribe: ReadonlySet<Operation> = new Set(["read", "write", "alter", "delete"]);

function ruleMatches(rule: Rule, resource: ResourceType, name: string): boolean {
  if (rule.resource !== resource) return false;
  if (rule.patternType === "prefixed") return name.startsWith(rule.name);
  return rule.name === "*" || rule.name === name;
}

function ruleAllows(rule: Rule, operation: Operation): boolean {
  if (rule.operations.includes(operation)) return true;
  return operation === "describe" && rule.operations.some((granted) => impliesDescribe.has(granted));
}

/** Whether any rule allows `operation` on the resource `resource`/`name`. */
export function allows(rules: readonly Rule[], resource: ResourceType, name: string, operation: Operation): boolean {
  for (const rule of rules) if (ruleMatches(rule, resource, name) && ruleAllows(rule, operation)) return true;
  return false;
}

/**
 * Whether the rules allow `operation` on at least one resource of the type — Kafka lets a
 * producer with WRITE on any topic initialise an idempotent producer id (KIP-679).
 */
export function allowsAny(rules: readonly Rule[], resource: ResourceType, operation: Operation): boolean {
  return rules.some((rule) => rule.resource === resource && ruleAllows(rule, operation));
}
