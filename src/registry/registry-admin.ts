import {
  compatibilityLevels,
  isCompatibilityLevel,
  isRegistryMode,
  registryModes,
  type CompatibilityLevel,
  type RegistryMode,
} from "./compatibility.ts";
import { parseVersion, schemaFields, type RegistryCore, type SchemaRequest } from "./registry-core.ts";
import { RegistryError } from "./registry-errors.ts";
import type { ResolvedReference, SchemaReference } from "./schema-types.ts";
import { protobufRecordNames } from "./protobuf/proto-schema.ts";
import { schemaRecordName } from "./wire-format.ts";

/**
 * The registry's other operations (docs/schema-registry.md): soft and permanent deletion,
 * schemas by id, the compatibility test, configs and modes, over the rules of
 * registry-core.ts. Pure. Deleting anything another schema's references name is 42206:
 * that schema could no longer be parsed.
 */

function writable(core: RegistryCore, subject: string): void {
  if (core.effectiveMode(subject) === "READONLY") throw new RegistryError("OPERATION_NOT_PERMITTED", `Subject ${subject} is in read-only mode`);
}

function notReferenced(core: RegistryCore, subject: string, version: number): void {
  const by = core.store.referencedBy(subject, version);
  if (by.length > 0) {
    throw new RegistryError("REFERENCE_EXISTS", `One or more references exist to the schema {subject=${subject}, version=${version}}: schemas ${by.join(", ")}`);
  }
}

/** DELETE /subjects/{s}/versions/{v}: soft first, then permanent (which needs the soft delete). */
export function deleteVersion(core: RegistryCore, subject: string, versionText: string, permanent: boolean): number {
  writable(core, subject);
  const version = parseVersion(versionText);
  const rows = core.store.versionsOf(subject).filter((row) => permanent || !row.deleted);
  if (rows.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  const row = version === "latest" ? rows.at(-1)! : core.store.versionsOf(subject).find((candidate) => candidate.version === version);
  if (!row) throw new RegistryError("VERSION_NOT_FOUND", `Version ${versionText} not found.`);
  if (permanent && !row.deleted) {
    throw new RegistryError("VERSION_NOT_SOFT_DELETED", `Subject '${subject}' Version ${row.version} was not deleted first before being permanently deleted`);
  }
  if (!permanent && row.deleted) throw new RegistryError("VERSION_SOFT_DELETED", `Subject '${subject}' Version ${row.version} was soft deleted. Set permanent=true to delete permanently`);
  notReferenced(core, subject, row.version);
  if (permanent) core.store.removeVersion(subject, row.version);
  else core.store.markVersionDeleted(subject, row.version);
  return row.version;
}

/** DELETE /subjects/{s}: the versions it deleted. A permanent delete also drops the subject's config and mode. */
export function deleteSubject(core: RegistryCore, subject: string, permanent: boolean): number[] {
  writable(core, subject);
  const rows = core.store.versionsOf(subject);
  if (rows.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  const live = rows.filter((row) => !row.deleted);
  if (permanent && live.length > 0) {
    throw new RegistryError("SUBJECT_NOT_SOFT_DELETED", `Subject '${subject}' was not deleted first before being permanently deleted`);
  }
  if (!permanent && live.length === 0) throw new RegistryError("SUBJECT_SOFT_DELETED", `Subject '${subject}' was soft deleted. Set permanent=true to delete permanently`);
  for (const row of rows) notReferenced(core, subject, row.version);
  if (!permanent) {
    for (const row of live) core.store.markVersionDeleted(subject, row.version);
    return live.map((row) => row.version);
  }
  for (const row of rows) core.store.removeVersion(subject, row.version);
  core.store.setSetting(subject, "compatibility", undefined);
  core.store.setSetting(subject, "mode", undefined);
  return rows.map((row) => row.version);
}

export interface SchemaById {
  schema: string;
  schemaType?: string;
  references?: SchemaReference[];
  /** Every subject holding it, soft-deleted versions included: what authorization and the cache need. */
  subjects: string[];
}

/** GET /schemas/ids/{id}: a schema some subject still holds (a soft-deleted version counts: old data is read with it). */
export function schemaById(core: RegistryCore, id: number): SchemaById {
  const stored = core.store.schemaById(id);
  const rows = core.store.versionsOfSchema(id);
  if (!stored || rows.length === 0) throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${id} not found`);
  return { ...schemaFields(stored), subjects: [...new Set(rows.map((row) => row.subject))].sort() };
}

/** What schema id validation (src/data-plane/schema-id-checks.ts) needs of a schema. */
export interface SchemaSubjects {
  id: number;
  schemaType: string;
  /** Its record name (RecordNameStrategy's subject), when it has one. */
  recordName?: string;
  /** A PROTOBUF schema's record names by message indexes ("0", "0.1"…): a record names its message. */
  recordNames?: Record<string, string>;
  /** The subjects whose live versions hold it: a soft-deleted version no longer admits new records. */
  subjects: string[];
}

/** The schemas of these ids that exist; an id not in the answer names no schema. */
export function schemasForValidation(core: RegistryCore, ids: readonly number[]): SchemaSubjects[] {
  const found: SchemaSubjects[] = [];
  for (const id of new Set(ids)) {
    const stored = core.store.schemaById(id);
    if (!stored) continue;
    const subjects = [...new Set(core.store.versionsOfSchema(id).filter((row) => !row.deleted).map((row) => row.subject))].sort();
    const recordName = schemaRecordName(stored.schemaType, stored.schema);
    const recordNames = stored.schemaType === "PROTOBUF" ? { recordNames: protobufRecordNames(stored.schema) } : {};
    found.push({ id, schemaType: stored.schemaType, ...(recordName === undefined ? {} : { recordName }), ...recordNames, subjects });
  }
  return found;
}

/** What full validation and decode=schema need of a schema, to parse it in the router: its text and its references resolved. */
export interface SchemaText {
  id: number;
  schemaType: string;
  schema: string;
  references: ResolvedReference[];
}

/** The texts of these ids' schemas; an id not in the answer names no schema (or one that no longer parses). */
export function schemaTexts(core: RegistryCore, ids: readonly number[]): SchemaText[] {
  const found: SchemaText[] = [];
  for (const id of new Set(ids)) {
    const text = core.textWithReferences(id);
    if (text) found.push({ id, ...text });
  }
  return found;
}

export function versionsOfSchema(core: RegistryCore, id: number, deleted: boolean): { subject: string; version: number }[] {
  schemaById(core, id);
  return core.store
    .versionsOfSchema(id)
    .filter((row) => deleted || !row.deleted)
    .map(({ subject, version }) => ({ subject, version }));
}

/**
 * POST /compatibility/subjects/{s}/versions[/{v}]: against one version (in the level's
 * directions) or, with no version, against the live versions the level reaches.
 */
export function testCompatibility(
  core: RegistryCore,
  subject: string,
  versionText: string | undefined,
  request: SchemaRequest,
  normalize: boolean,
): { is_compatible: boolean; messages: string[] } {
  const { parsed } = core.parseRequest(request, normalize);
  const level = core.effectiveLevel(subject);
  let messages: string[];
  if (versionText === undefined) {
    messages = core.issuesAgainst(level, parsed, core.store.versionsOf(subject).filter((row) => !row.deleted));
  } else {
    const selected = core.version(subject, versionText, false);
    const plain = level.replace("_TRANSITIVE", "") as CompatibilityLevel;
    messages = core.issuesAgainst(plain, parsed, [{ subject, version: selected.version, schemaId: selected.id, deleted: false }]);
  }
  return { is_compatible: messages.length === 0, messages };
}

// ---- configs and modes ----------------------------------------------------------------------

export function getConfig(core: RegistryCore, subject: string | undefined, defaultToGlobal: boolean): { compatibilityLevel: CompatibilityLevel } {
  const own = core.store.setting(subject, "compatibility") as CompatibilityLevel | undefined;
  if (own) return { compatibilityLevel: own };
  if (subject !== undefined && !defaultToGlobal) {
    throw new RegistryError("SUBJECT_COMPATIBILITY_NOT_CONFIGURED", `Subject '${subject}' does not have subject-level compatibility configured`);
  }
  return { compatibilityLevel: core.effectiveLevel(subject ?? "") };
}

export function setConfig(core: RegistryCore, subject: string | undefined, level: unknown): { compatibility: CompatibilityLevel } {
  if (!isCompatibilityLevel(level)) {
    throw new RegistryError("INVALID_COMPATIBILITY_LEVEL", `Invalid compatibility level. Valid values are: ${compatibilityLevels.join(", ")}`);
  }
  core.store.setSetting(subject, "compatibility", level);
  return { compatibility: level };
}

/** DELETE /config[/{s}]: the level in force before, the subject's own or the global one reset to the default. */
export function deleteConfig(core: RegistryCore, subject: string | undefined): { compatibilityLevel: CompatibilityLevel } {
  if (subject !== undefined && core.store.versionsOf(subject).length === 0 && core.store.setting(subject, "compatibility") === undefined) {
    throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  }
  const before = core.effectiveLevel(subject ?? "");
  core.store.setSetting(subject, "compatibility", undefined);
  return { compatibilityLevel: before };
}

export function getMode(core: RegistryCore, subject: string | undefined, defaultToGlobal: boolean): { mode: RegistryMode } {
  const own = core.store.setting(subject, "mode") as RegistryMode | undefined;
  if (own) return { mode: own };
  if (subject !== undefined && !defaultToGlobal) {
    throw new RegistryError("SUBJECT_MODE_NOT_CONFIGURED", `Subject '${subject}' does not have subject-level mode configured`);
  }
  return { mode: core.effectiveMode(subject ?? "") };
}

/** PUT /mode[/{s}]: IMPORT only over an empty registry (or subject) unless forced, as Confluent. */
export function setMode(core: RegistryCore, subject: string | undefined, mode: unknown, force: boolean): { mode: RegistryMode } {
  if (!isRegistryMode(mode)) throw new RegistryError("INVALID_MODE", `Invalid mode. Valid values are: ${registryModes.join(", ")}`);
  if (mode === "IMPORT" && !force) {
    const occupied = subject === undefined ? core.store.subjectCount() > 0 : core.store.versionsOf(subject).length > 0;
    if (occupied) throw new RegistryError("OPERATION_NOT_PERMITTED", `Cannot import since found existing subjects${subject === undefined ? "" : ` (${subject})`}; set force=true to import anyway`);
  }
  core.store.setSetting(subject, "mode", mode);
  return { mode };
}

export function deleteMode(core: RegistryCore, subject: string): { mode: RegistryMode } {
  const before = core.effectiveMode(subject);
  core.store.setSetting(subject, "mode", undefined);
  return { mode: before };
}
