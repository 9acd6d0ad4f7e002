import type { SchemaReference } from "./schema-types.ts";

/**
 * What the registry's rules (src/registry/registry-core.ts) need from storage, synchronously:
 * the registry object implements it over its SQLite (src/objects/schema-registry-store.ts), in
 * one object turn, so a registration's reads and writes see no other request's.
 */

export interface StoredSchema {
  id: number;
  schemaType: string;
  /** The schema's text as stored: as given without whitespace, or normalized. */
  schema: string;
  references: SchemaReference[];
}

export interface VersionRow {
  subject: string;
  version: number;
  schemaId: number;
  /** Soft-deleted: hidden unless asked for with deleted=true, kept until a permanent delete. */
  deleted: boolean;
}

export type SettingKey = "compatibility" | "mode";

export interface RegistryStore {
  schemaById(id: number): StoredSchema | undefined;
  /** The id of a schema with exactly this type, text and references, if one is stored. */
  schemaIdOf(schemaType: string, schema: string, references: readonly SchemaReference[]): number | undefined;
  maxSchemaId(): number;
  insertSchema(schema: StoredSchema): void;
  /** A subject's versions, oldest first, soft-deleted ones included. */
  versionsOf(subject: string): VersionRow[];
  /** Every version row holding the schema, soft-deleted ones included. */
  versionsOfSchema(id: number): VersionRow[];
  /** Every subject with at least one version row, and whether all of its versions are soft-deleted. */
  subjects(): { subject: string; deleted: boolean }[];
  subjectCount(): number;
  insertVersion(row: VersionRow): void;
  markVersionDeleted(subject: string, version: number): void;
  removeVersion(subject: string, version: number): void;
  /** Ids of schemas that reference the subject's version and still have a version row. */
  referencedBy(subject: string, version: number): number[];
  /** A setting of a subject, or the global one (subject undefined). */
  setting(subject: string | undefined, key: SettingKey): string | undefined;
  setSetting(subject: string | undefined, key: SettingKey, value: string | undefined): void;
}
