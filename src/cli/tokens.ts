/**
 * `tributary tokens create|list|revoke` (API.md, Tokens: the admin token only). A rule is one
 * `--rule resource:name:patternType:operations` — `topic:orders:literal:read,write`,
 * `group:app-:prefixed:read` — and a listing prints rules the same way. `create` prints the
 * token's secret once, apart from everything else, since the server never shows it again.
 */
import { operations, patternTypes, resourceTypes, type Operation, type PatternType, type ResourceType } from "../auth/acl.ts";
import type { CreatedToken, Quotas, Rule, TokenInfo } from "../client/index.ts";
import { quotaRatePerSecondMax } from "../limits.ts";
import { durationValue, integerValue, listValue, stringValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { formatCount, renderTable } from "./table.ts";

export const tokensOptions: Record<string, OptionName[]> = {
  create: ["name", "rule", "expires-in", "produce-bytes-per-second", "fetch-bytes-per-second", "requests-per-second", "quiet"],
  list: [],
  revoke: [],
};

const ruleSyntax = "resource:name:patternType:operations, e.g. topic:orders:literal:read,write";

function oneOf<T extends string>(allowed: readonly T[], value: string, what: string, rule: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--rule ${JSON.stringify(rule)}: ${what} is one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
}

/**
 * `resource:name:patternType:operations`. The name is everything between the first colon and
 * the last two, so a name may itself hold colons.
 */
export function parseRule(text: string): Rule {
  const parts = text.split(":");
  if (parts.length < 4) throw new UsageError(`--rule takes ${ruleSyntax}; got ${JSON.stringify(text)}`);
  const name = parts.slice(1, -2).join(":");
  if (name === "") throw new UsageError(`--rule ${JSON.stringify(text)}: the name is empty (a literal "*" matches every name)`);
  const ruleOperations = parts.at(-1)!.split(",").map((operation) => oneOf<Operation>(operations, operation, "an operation", text));
  return {
    resource: oneOf<ResourceType>(resourceTypes, parts[0]!, "the resource", text),
    name,
    patternType: oneOf<PatternType>(patternTypes, parts.at(-2)!, "the pattern type", text),
    operations: [...new Set(ruleOperations)],
  };
}

export function formatRule(rule: Rule): string {
  return `${rule.resource}:${rule.name}:${rule.patternType}:${rule.operations.join(",")}`;
}

function formatExpiry(expiresAt: number | null): string {
  return expiresAt === null ? "never" : new Date(expiresAt).toISOString();
}

function formatQuotas(quotas: Quotas): string {
  const parts = [
    quotas.produceBytesPerSecond === undefined ? undefined : `produce ${formatCount(quotas.produceBytesPerSecond)} B/s`,
    quotas.fetchBytesPerSecond === undefined ? undefined : `fetch ${formatCount(quotas.fetchBytesPerSecond)} B/s`,
    quotas.requestsPerSecond === undefined ? undefined : `${formatCount(quotas.requestsPerSecond)} requests/s`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? "unlimited" : parts.join(", ");
}

function quotasOf(context: CommandContext): Quotas | undefined {
  const quotas: Quotas = {
    produceBytesPerSecond: integerValue(context.values, "produce-bytes-per-second", 1, quotaRatePerSecondMax),
    fetchBytesPerSecond: integerValue(context.values, "fetch-bytes-per-second", 1, quotaRatePerSecondMax),
    requestsPerSecond: integerValue(context.values, "requests-per-second", 1, quotaRatePerSecondMax),
  };
  const given = Object.entries(quotas).filter(([, value]) => value !== undefined);
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

function describeCreated(created: CreatedToken): string {
  const name = created.name === null ? "" : ` ${JSON.stringify(created.name)}`;
  const rules = created.rules.length === 0 ? "  no rules: it may do nothing\n" : created.rules.map((rule) => `  ${formatRule(rule)}\n`).join("");
  return (
    `created token ${created.id}${name}, expires ${formatExpiry(created.expiresAt)}, quotas ${formatQuotas(created.quotas)}\n${rules}\n` +
    `the token's secret, shown this once (keep it secret; give it as TRIBUTARY_TOKEN):\n${created.token.reveal()}\n`
  );
}

async function createToken(context: CommandContext): Promise<void> {
  if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
  const rules = listValue(context.values, "rule").map(parseRule);
  if (rules.length === 0) throw new UsageError(`tokens create needs at least one --rule ${ruleSyntax}`);
  const expiresIn = durationValue(context.values, "expires-in");
  const created = await context.client.admin().tokens.create({
    name: stringValue(context.values, "name"),
    rules,
    expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn,
    quotas: quotasOf(context),
  });
  if (context.values.quiet === true && !context.json) return output(context, null, () => `${created.token.reveal()}\n`);
  return output(context, { ...created, token: created.token.reveal() }, () => describeCreated(created));
}

function listTokens(tokens: TokenInfo[]): string {
  if (tokens.length === 0) return "no tokens\n";
  return renderTable(
    ["ID", "NAME", "EXPIRES", "QUOTAS", "RULES"],
    tokens.map((token) => [token.id, token.name, formatExpiry(token.expiresAt), formatQuotas(token.quotas), token.rules.map(formatRule).join(" ")]),
  );
}

export async function tokensCommand(subcommand: string, context: CommandContext): Promise<void> {
  const tokens = context.client.admin().tokens;
  switch (subcommand) {
    case "create":
      return createToken(context);
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const list = await tokens.list();
      return output(context, { tokens: list }, () => listTokens(list));
    }
    case "revoke": {
      const [id, ...extra] = context.args;
      if (id === undefined) throw new UsageError("name the token's id (tributary tokens list shows them)");
      if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
      // The whole token would end up in an error message: refuse it before it is sent anywhere.
      if (/^tr[bw]_/.test(id)) throw new UsageError("give the token's id (tributary tokens list), not the token itself");
      await tokens.revoke(id);
      return output(context, { revoked: id }, () => `revoked token ${id}; requests with it fail within seconds\n`);
    }
    default:
      throw new UsageError(`unknown command: tokens ${subcommand}`);
  }
}
