/**
 * Confluent's compatibility levels and registry modes (docs/schema-registry.md), and how a
 * level turns "can this reader read that writer" into a verdict on a new version:
 *
 * | level | checked against | the rule |
 * |---|---|---|
 * | BACKWARD (default) | the latest version | the new schema reads data written with it |
 * | FORWARD | the latest version | it reads data written with the new schema |
 * | FULL | the latest version | both |
 * | *_TRANSITIVE | every version | the same, against each |
 * | NONE | nothing | — |
 *
 * Soft-deleted versions take no part (Confluent's behaviour). Pure and generic over the schema
 * type: each type gives `readIssues(reader, writer)`.
 */

export const compatibilityLevels = [
  "BACKWARD",
  "BACKWARD_TRANSITIVE",
  "FORWARD",
  "FORWARD_TRANSITIVE",
  "FULL",
  "FULL_TRANSITIVE",
  "NONE",
] as const;
export type CompatibilityLevel = (typeof compatibilityLevels)[number];
export const defaultCompatibilityLevel: CompatibilityLevel = "BACKWARD";

export const registryModes = ["READWRITE", "READONLY", "IMPORT"] as const;
export type RegistryMode = (typeof registryModes)[number];
export const defaultRegistryMode: RegistryMode = "READWRITE";

export function isCompatibilityLevel(value: unknown): value is CompatibilityLevel {
  return typeof value === "string" && (compatibilityLevels as readonly string[]).includes(value);
}

export function isRegistryMode(value: unknown): value is RegistryMode {
  return typeof value === "string" && (registryModes as readonly string[]).includes(value);
}

export interface Issue {
  kind: string;
  location: string;
  message: string;
}

export type ReadIssues<T> = (reader: T, writer: T) => Issue[];

/**
 * Why `candidate` may not follow `previous` (oldest first) under `level`; empty when it may.
 * Each message names the version it fails against and the direction.
 */
export function compatibilityIssues<T>(
  level: CompatibilityLevel,
  candidate: T,
  previous: readonly { version: number; schema: T }[],
  readIssues: ReadIssues<T>,
): string[] {
  if (level === "NONE" || previous.length === 0) return [];
  const against = level.endsWith("_TRANSITIVE") ? previous : previous.slice(-1);
  const backward = level.startsWith("BACKWARD") || level.startsWith("FULL");
  const forward = level.startsWith("FORWARD") || level.startsWith("FULL");
  const messages: string[] = [];
  for (const { version, schema } of [...against].reverse()) {
    if (backward) {
      for (const issue of readIssues(candidate, schema)) {
        messages.push(`{errorType:'${issue.kind}', location:'${issue.location}', description:'the new schema cannot read data written with version ${version}: ${issue.message}'}`);
      }
    }
    if (forward) {
      for (const issue of readIssues(schema, candidate)) {
        messages.push(`{errorType:'${issue.kind}', location:'${issue.location}', description:'version ${version} cannot read data written with the new schema: ${issue.message}'}`);
      }
    }
  }
  if (messages.length > 0) messages.push(`{compatibility: '${level}'}`);
  return messages;
}
