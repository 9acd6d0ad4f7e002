/**
 * The schema registry's REST API (docs/schema-registry.md: Confluent's, under `/registry`) as
 * the Schemas page reads it. Its answers are Confluent's shapes; its errors become `ApiError`s
 * with Confluent's code (`40401: Subject 'x' not found.`), see api.ts.
 */
import { api, ApiError, path } from "./api.ts";
import { describeEach } from "./data.ts";

/** Confluent's seven compatibility levels, BACKWARD the default. */
export const compatibilityLevels = ["BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE"] as const;

/** `GET /registry/subjects/{s}/versions/{v}`: `schemaType` is left out for AVRO, as Confluent does. */
export interface SchemaVersion {
  subject: string;
  id: number;
  version: number;
  schema: string;
  schemaType?: string;
  references?: { name: string; subject: string; version: number }[];
}

export interface SubjectRow {
  subject: string;
  /** Only its versions are soft-deleted (listed with `deleted=true`). */
  deleted: boolean;
  /** Undefined when it could not be read (deleted meanwhile) or lay beyond the described bound. */
  latest: SchemaVersion | undefined;
}

export function schemaTypeOf(version: SchemaVersion): string {
  return version.schemaType ?? "AVRO";
}

/** Every subject with its latest version (the first `describedTopicsMax`, 6 calls at a time); soft-deleted ones when asked. */
export async function loadSubjects(withDeleted: boolean): Promise<SubjectRow[]> {
  const live = await api<string[]>("GET", "/registry/subjects");
  const all = withDeleted ? await api<string[]>("GET", "/registry/subjects?deleted=true") : live;
  const liveSet = new Set(live);
  const latest = await describeEach(all, (subject) => api<SchemaVersion>("GET", path`/registry/subjects/${subject}/versions/latest` + (liveSet.has(subject) ? "" : "?deleted=true")));
  return all.map((subject) => ({ subject, deleted: !liveSet.has(subject), latest: latest.get(subject) }));
}

export interface SubjectDetail {
  versions: SchemaVersion[];
  /** Version numbers that are soft-deleted. */
  deleted: Set<number>;
}

/** A subject's versions, soft-deleted ones included and marked (the first `describedTopicsMax`). */
export async function loadSubject(subject: string): Promise<SubjectDetail> {
  const [all, live] = await Promise.all([
    api<number[]>("GET", path`/registry/subjects/${subject}/versions` + "?deleted=true"),
    // A subject whose versions are all soft-deleted answers 40401 without `deleted=true`.
    api<number[]>("GET", path`/registry/subjects/${subject}/versions`).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === "40401") return [];
      throw error;
    }),
  ]);
  const liveSet = new Set(live);
  const described = await describeEach(all.map(String), (version) => api<SchemaVersion>("GET", path`/registry/subjects/${subject}/versions/${version}` + "?deleted=true"));
  return { versions: [...described.values()].sort((a, b) => a.version - b.version), deleted: new Set(all.filter((version) => !liveSet.has(version))) };
}

/** The global level (`GET /registry/config`). */
export function loadGlobalCompatibility(): Promise<string> {
  return api<{ compatibilityLevel: string }>("GET", "/registry/config").then((answer) => answer.compatibilityLevel);
}

/** The subject's level: its own, or the global one when it has none (`defaultToGlobal=true`, as Confluent's clients ask). */
export function loadSubjectCompatibility(subject: string): Promise<string> {
  return api<{ compatibilityLevel: string }>("GET", path`/registry/config/${subject}` + "?defaultToGlobal=true").then((answer) => answer.compatibilityLevel);
}

export function setSubjectCompatibility(subject: string, level: string): Promise<unknown> {
  return api("PUT", path`/registry/config/${subject}`, { compatibility: level });
}

/** Drops the subject's own level, so the global one applies (Confluent's 40408 when it has none). */
export function clearSubjectCompatibility(subject: string): Promise<unknown> {
  return api("DELETE", path`/registry/config/${subject}`);
}
