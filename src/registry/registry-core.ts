import {
  registryParsedSchemaBytesCachedMax,
  registryParsedSchemasCachedMax,
  registryReferenceDepthMax,
  registryReferencesPerSchemaMax,
  registryResolvedReferencesMax,
  registrySubjectLengthMax,
  registrySubjectsMax,
  registryVersionsPerSubjectMax,
} from "../limits.ts";
import {
  compatibilityIssues,
  defaultCompatibilityLevel,
  defaultRegistryMode,
  type CompatibilityLevel,
  type RegistryMode,
} from "./compatibility.ts";
import { RegistryError } from "./registry-errors.ts";
import type { RegistryStore, StoredSchema, VersionRow } from "./registry-store.ts";
import {
  parseSchema,
  schemaReadIssues,
  schemaTypeOf,
  storedText,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaReference,
} from "./schema-types.ts";

/**
 * The registry's rules for subjects, versions and schema ids (Confluent Schema Registry's
 * behaviour, docs/schema-registry.md), over a synchronous store: registration (ids global and
 * dense from 1, one id for one schema whatever its subjects, compatibility checked against the
 * subject's live versions at its level, IMPORT mode's given ids), lookup, versions, references
 * and soft and permanent deletion. Configs and modes are in registry-settings.ts. Pure.
 */

export interface SchemaRequest {
  schema: string;
  schemaType?: string;
  references?: SchemaReference[];
  /** IMPORT mode only: the id (and version) the schema had in the registry it comes from. */
  id?: number;
  version?: number;
}

export interface SubjectVersion {
  subject: string;
  id: number;
  version: number;
  schema: string;
  schemaType?: string;
  references?: SchemaReference[];
}

const versionMax = 2 ** 31 - 1;

/** Confluent leaves schemaType and references out of its answers when they are AVRO and none. */
export function schemaFields(stored: StoredSchema): { schema: string; schemaType?: string; references?: SchemaReference[] } {
  return {
    schema: stored.schema,
    ...(stored.schemaType !== "AVRO" ? { schemaType: stored.schemaType } : {}),
    ...(stored.references.length > 0 ? { references: stored.references } : {}),
  };
}

/** A path's version: a number in [1, 2^31-1], or "latest" (also -1): 42202 otherwise. */
export function parseVersion(text: string): number | "latest" {
  if (text === "latest" || text === "-1") return "latest";
  const version = /^[0-9]{1,10}$/.test(text) ? Number(text) : NaN;
  if (!(version >= 1 && version <= versionMax)) {
    throw new RegistryError("INVALID_VERSION", `The specified version '${text}' is not a valid version id. Allowed values are between [1, ${versionMax}] and the string "latest"`);
  }
  return version;
}

export function checkSubject(subject: string): void {
  if (subject.length === 0 || subject.length > registrySubjectLengthMax) {
    throw new RegistryError("UNPROCESSABLE", `a subject name has 1 to ${registrySubjectLengthMax} characters (limits.ts, registrySubjectLengthMax)`);
  }
}

export class RegistryCore {
  readonly #store: RegistryStore;
  /** Parsed schemas by id (ids never change what they name), with their text's length; oldest dropped first. */
  readonly #parsed = new Map<number, { parsed: ParsedSchema; chars: number }>();
  #parsedChars = 0;

  constructor(store: RegistryStore) {
    this.#store = store;
  }

  get store(): RegistryStore {
    return this.#store;
  }

  effectiveLevel(subject: string): CompatibilityLevel {
    return (this.#store.setting(subject, "compatibility") ?? this.#store.setting(undefined, "compatibility") ?? defaultCompatibilityLevel) as CompatibilityLevel;
  }

  effectiveMode(subject: string): RegistryMode {
    return (this.#store.setting(subject, "mode") ?? this.#store.setting(undefined, "mode") ?? defaultRegistryMode) as RegistryMode;
  }

  subjects(deleted: boolean, prefix: string): string[] {
    return this.#store
      .subjects()
      .filter((row) => (deleted || !row.deleted) && row.subject.startsWith(prefix))
      .map((row) => row.subject)
      .sort();
  }

  /** The subject's visible versions: 40401 when it has none. */
  #rows(subject: string, deleted: boolean): VersionRow[] {
    const rows = this.#store.versionsOf(subject).filter((row) => deleted || !row.deleted);
    if (rows.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
    return rows;
  }

  #select(subject: string, versionText: string, deleted: boolean): VersionRow {
    const version = parseVersion(versionText);
    const rows = this.#rows(subject, deleted);
    const row = version === "latest" ? rows.at(-1) : rows.find((candidate) => candidate.version === version);
    if (!row) throw new RegistryError("VERSION_NOT_FOUND", `Version ${versionText} not found.`);
    return row;
  }

  versions(subject: string, deleted: boolean): number[] {
    return this.#rows(subject, deleted).map((row) => row.version);
  }

  #subjectVersion(row: VersionRow): SubjectVersion {
    const stored = this.#store.schemaById(row.schemaId);
    if (!stored) throw new RegistryError("STORE_ERROR", `version ${row.version} of ${row.subject} names schema ${row.schemaId}, which is not stored`);
    return { subject: row.subject, id: row.schemaId, version: row.version, ...schemaFields(stored) };
  }

  version(subject: string, versionText: string, deleted: boolean): SubjectVersion {
    return this.#subjectVersion(this.#select(subject, versionText, deleted));
  }

  referencedBy(subject: string, versionText: string): number[] {
    const row = this.#select(subject, versionText, true);
    return this.#store.referencedBy(subject, row.version);
  }

  // ---- references and parsing ---------------------------------------------------------------

  #checkReferences(references: unknown): SchemaReference[] {
    if (references === undefined || references === null) return [];
    if (!Array.isArray(references)) throw new RegistryError("UNPROCESSABLE", "references is not an array");
    if (references.length > registryReferencesPerSchemaMax) {
      throw new RegistryError("LIMIT_EXCEEDED", `a schema names at most ${registryReferencesPerSchemaMax} references (limits.ts, registryReferencesPerSchemaMax)`);
    }
    return references.map((reference: Partial<SchemaReference>) => {
      if (typeof reference?.name !== "string" || typeof reference.subject !== "string" || !Number.isInteger(reference.version)) {
        throw new RegistryError("UNPROCESSABLE", "a reference is {\"name\", \"subject\", \"version\"}");
      }
      return { name: reference.name, subject: reference.subject, version: reference.version! };
    });
  }

  /** The schemas the references name, with theirs (a reference to version -1 is to the latest). */
  #resolve(references: readonly SchemaReference[], depth: number, budget = { left: registryResolvedReferencesMax }): ResolvedReference[] {
    if (depth > registryReferenceDepthMax) {
      throw new RegistryError("LIMIT_EXCEEDED", `references nest deeper than ${registryReferenceDepthMax} (limits.ts, registryReferenceDepthMax)`);
    }
    return references.map((reference) => {
      if (--budget.left < 0) {
        throw new RegistryError("LIMIT_EXCEEDED", `the references resolve to more than ${registryResolvedReferencesMax} schemas, counted through every level (limits.ts, registryResolvedReferencesMax)`);
      }
      const rows = this.#store.versionsOf(reference.subject);
      const row = reference.version === -1 ? rows.filter((candidate) => !candidate.deleted).at(-1) : rows.find((candidate) => candidate.version === reference.version);
      const stored = row && this.#store.schemaById(row.schemaId);
      if (!row || !stored) {
        throw new RegistryError("INVALID_SCHEMA", `Invalid schema: reference ${reference.name} names version ${reference.version} of subject '${reference.subject}', which does not exist`);
      }
      const resolved: ResolvedReference = { ...reference, version: row.version, schemaType: stored.schemaType, schema: stored.schema, references: [] };
      resolved.references = this.#resolve(stored.references, depth + 1, budget);
      return resolved;
    });
  }

  /** A request's schema parsed, with the text it is stored as and its references (-1 resolved to a version). */
  parseRequest(request: SchemaRequest, normalize: boolean): { parsed: ParsedSchema; text: string; references: SchemaReference[] } {
    if (typeof request.schema !== "string") throw new RegistryError("UNPROCESSABLE", "the request has no \"schema\" string");
    const schemaType = schemaTypeOf(request.schemaType);
    const resolved = this.#resolve(this.#checkReferences(request.references), 1);
    const parsed = parseSchema(schemaType, request.schema, resolved);
    const references = resolved.map(({ name, subject, version }) => ({ name, subject, version }));
    return { parsed, text: storedText(parsed, request.schema, normalize), references };
  }

  /** A stored schema's text with its references resolved, for parsing it elsewhere (the router's full validation and decode=schema); undefined when it cannot be. */
  textWithReferences(id: number): { schemaType: string; schema: string; references: ResolvedReference[] } | undefined {
    const stored = this.#store.schemaById(id);
    if (!stored) return undefined;
    try {
      return { schemaType: stored.schemaType, schema: stored.schema, references: this.#resolve(stored.references, 1) };
    } catch (error) {
      if (error instanceof RegistryError) return undefined; // a reference permanently deleted: the schema no longer parses
      throw error;
    }
  }

  parsedById(id: number): ParsedSchema {
    const cached = this.#parsed.get(id);
    if (cached) return cached.parsed;
    const stored = this.#store.schemaById(id);
    if (!stored) throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${id} not found`);
    const parsed = parseSchema(schemaTypeOf(stored.schemaType), stored.schema, this.#resolve(stored.references, 1));
    // Characters count for bytes here: the bound is the object's memory, not exact.
    this.#parsed.set(id, { parsed, chars: stored.schema.length });
    this.#parsedChars += stored.schema.length;
    while (this.#parsed.size > registryParsedSchemasCachedMax || this.#parsedChars > registryParsedSchemaBytesCachedMax) {
      const [oldest, entry] = this.#parsed.entries().next().value!;
      this.#parsed.delete(oldest);
      this.#parsedChars -= entry.chars;
    }
    return parsed;
  }

  /** Why `parsed` may not follow the rows (oldest first) at `level`; empty when it may. */
  issuesAgainst(level: CompatibilityLevel, parsed: ParsedSchema, rows: readonly VersionRow[]): string[] {
    if (level === "NONE") return [];
    const previous = rows.map((row) => ({ version: row.version, schema: this.parsedById(row.schemaId) }));
    return compatibilityIssues(level, parsed, previous, schemaReadIssues);
  }

  // ---- registration and lookup --------------------------------------------------------------

  register(subject: string, request: SchemaRequest, normalize: boolean): { id: number } {
    checkSubject(subject);
    const mode = this.effectiveMode(subject);
    if (mode === "READONLY") throw new RegistryError("OPERATION_NOT_PERMITTED", `Subject ${subject} is in read-only mode`);
    if (request.id !== undefined && mode !== "IMPORT") {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `a schema's id may be given only in IMPORT mode; subject ${subject} is in ${mode} mode`);
    }
    const { parsed, text, references } = this.parseRequest(request, normalize);
    const existingId = this.#store.schemaIdOf(parsed.schemaType, text, references);
    const rows = this.#store.versionsOf(subject);
    const live = rows.filter((row) => !row.deleted);
    const same = existingId === undefined ? undefined : live.find((row) => row.schemaId === existingId);
    if (same && (request.id === undefined || request.id === existingId) && (request.version === undefined || request.version === same.version)) {
      return { id: existingId! };
    }
    const placed = mode === "IMPORT" ? this.#importPlace(subject, request, existingId, rows) : this.#newPlace(subject, parsed, existingId, rows, live);
    if (rows.length === 0 && this.#store.subjectCount() >= registrySubjectsMax) {
      throw new RegistryError("LIMIT_EXCEEDED", `the registry holds at most ${registrySubjectsMax} subjects (limits.ts, registrySubjectsMax)`);
    }
    if (rows.length >= registryVersionsPerSubjectMax) {
      throw new RegistryError("LIMIT_EXCEEDED", `a subject holds at most ${registryVersionsPerSubjectMax} versions, soft-deleted ones included (limits.ts, registryVersionsPerSubjectMax)`);
    }
    if (this.#store.schemaById(placed.id) === undefined) this.#store.insertSchema({ id: placed.id, schemaType: parsed.schemaType, schema: text, references });
    this.#store.insertVersion({ subject, version: placed.version, schemaId: placed.id, deleted: false });
    return { id: placed.id };
  }

  /** READWRITE: checked against the subject's live versions, the schema's id (or the next), the next version. */
  #newPlace(subject: string, parsed: ParsedSchema, existingId: number | undefined, rows: VersionRow[], live: VersionRow[]): { id: number; version: number } {
    const level = this.effectiveLevel(subject);
    const issues = this.issuesAgainst(level, parsed, live);
    if (issues.length > 0) {
      throw new RegistryError("INCOMPATIBLE_SCHEMA", `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${issues.join(", ")}]`);
    }
    return { id: existingId ?? this.#store.maxSchemaId() + 1, version: (rows.at(-1)?.version ?? 0) + 1 };
  }

  /** IMPORT: the id given, never overwriting another schema's; the version given or the next; no compatibility check. */
  #importPlace(subject: string, request: SchemaRequest, existingId: number | undefined, rows: VersionRow[]): { id: number; version: number } {
    const id = request.id;
    if (id === undefined || !Number.isSafeInteger(id) || id < 1) {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `subject ${subject} is in IMPORT mode: give the schema's id, a whole number from 1`);
    }
    if (existingId !== undefined && existingId !== id) {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `Overwrite new schema with id ${id} is not permitted: the schema is registered with id ${existingId}`);
    }
    if (existingId === undefined && this.#store.schemaById(id) !== undefined) {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `Overwrite new schema with id ${id} is not permitted: another schema has that id`);
    }
    const version = request.version ?? (rows.at(-1)?.version ?? 0) + 1;
    if (!Number.isInteger(version) || version < 1 || version > versionMax) throw new RegistryError("INVALID_VERSION", `version ${version} is not a valid version`);
    if (rows.some((row) => row.version === version)) {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `version ${version} of subject ${subject} already exists`);
    }
    if (rows.length > 0 && version < rows.at(-1)!.version) {
      throw new RegistryError("OPERATION_NOT_PERMITTED", `versions are imported in order: subject ${subject} already has version ${rows.at(-1)!.version}`);
    }
    return { id, version };
  }

  lookup(subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): SubjectVersion {
    const rows = this.#rows(subject, deleted);
    const { parsed, text, references } = this.parseRequest(request, normalize);
    const id = this.#store.schemaIdOf(parsed.schemaType, text, references);
    const row = id === undefined ? undefined : rows.findLast((candidate) => candidate.schemaId === id);
    if (!row) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
    return this.#subjectVersion(row);
  }
}
