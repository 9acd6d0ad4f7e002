import type { RegistryRows } from "../registry/registry-changes.ts";
import type { RegistryStore, SettingKey, StoredSchema, VersionRow } from "../registry/registry-store.ts";
import type { SchemaReference } from "../registry/schema-types.ts";

/**
 * The schema registry's SQLite (src/objects/schema-registry.ts): schemas by id, each subject's
 * versions, what each schema's references name (for `referencedby` and the deletes it blocks),
 * configs and modes. A schema's identity is its type, stored text and references, unique, so
 * one schema has one id whatever subjects hold it. Every cursor is read to its end.
 */
export const schemaRegistryMigrations = [
  `CREATE TABLE schemas (
     id INTEGER PRIMARY KEY,
     schema_type TEXT NOT NULL,
     schema TEXT NOT NULL,
     refs TEXT NOT NULL,
     identity TEXT NOT NULL UNIQUE
   );
   CREATE TABLE versions (
     subject TEXT NOT NULL,
     version INTEGER NOT NULL,
     schema_id INTEGER NOT NULL,
     deleted INTEGER NOT NULL,
     PRIMARY KEY (subject, version)
   ) WITHOUT ROWID;
   CREATE INDEX versions_by_schema ON versions (schema_id);
   CREATE TABLE schema_refs (
     schema_id INTEGER NOT NULL,
     subject TEXT NOT NULL,
     version INTEGER NOT NULL
   );
   CREATE INDEX schema_refs_by_target ON schema_refs (subject, version);
   CREATE TABLE settings (
     scope TEXT NOT NULL,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (scope, key)
   ) WITHOUT ROWID;`,
  // Replication across regions (src/objects/registry-replica-rows.ts): the stamp of the rows held, and the epochs seen and led.
  `CREATE TABLE registry_replication (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     seen_epoch INTEGER NOT NULL,
     leading_epoch INTEGER NOT NULL,
     stamp_epoch INTEGER,
     stamp_version INTEGER
   );`,
];

/** A setting's scope: the global one, or a subject's (prefixed, so no subject name can be the global scope). */
const scopeOf = (subject: string | undefined): string => (subject === undefined ? "global" : `subject:${subject}`);

function identityOf(schemaType: string, schema: string, references: readonly SchemaReference[]): string {
  return JSON.stringify([schemaType, references, schema]);
}

type SchemaRow = { id: number; schema_type: string; schema: string; refs: string };
type VersionSqlRow = { subject: string; version: number; schema_id: number; deleted: number };

const versionOf = (row: VersionSqlRow): VersionRow => ({ subject: row.subject, version: row.version, schemaId: row.schema_id, deleted: row.deleted === 1 });

export class SqliteRegistryStore implements RegistryStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  schemaById(id: number): StoredSchema | undefined {
    const row = this.#sql.exec<SchemaRow>("SELECT id, schema_type, schema, refs FROM schemas WHERE id = ?", id).toArray()[0];
    return row && { id: row.id, schemaType: row.schema_type, schema: row.schema, references: JSON.parse(row.refs) as SchemaReference[] };
  }

  schemaIdOf(schemaType: string, schema: string, references: readonly SchemaReference[]): number | undefined {
    return this.#sql.exec<{ id: number }>("SELECT id FROM schemas WHERE identity = ?", identityOf(schemaType, schema, references)).toArray()[0]?.id;
  }

  maxSchemaId(): number {
    return this.#sql.exec<{ id: number | null }>("SELECT MAX(id) AS id FROM schemas").one().id ?? 0;
  }

  insertSchema(schema: StoredSchema): void {
    this.#sql.exec(
      "INSERT INTO schemas (id, schema_type, schema, refs, identity) VALUES (?, ?, ?, ?, ?)",
      schema.id,
      schema.schemaType,
      schema.schema,
      JSON.stringify(schema.references),
      identityOf(schema.schemaType, schema.schema, schema.references),
    );
    for (const reference of schema.references) {
      this.#sql.exec("INSERT INTO schema_refs (schema_id, subject, version) VALUES (?, ?, ?)", schema.id, reference.subject, reference.version);
    }
  }

  versionsOf(subject: string): VersionRow[] {
    return this.#sql
      .exec<VersionSqlRow>("SELECT subject, version, schema_id, deleted FROM versions WHERE subject = ? ORDER BY version", subject)
      .toArray()
      .map(versionOf);
  }

  versionsOfSchema(id: number): VersionRow[] {
    return this.#sql
      .exec<VersionSqlRow>("SELECT subject, version, schema_id, deleted FROM versions WHERE schema_id = ? ORDER BY subject, version", id)
      .toArray()
      .map(versionOf);
  }

  subjects(): { subject: string; deleted: boolean }[] {
    return this.#sql
      .exec<{ subject: string; live: number }>("SELECT subject, SUM(1 - deleted) AS live FROM versions GROUP BY subject")
      .toArray()
      .map((row) => ({ subject: row.subject, deleted: row.live === 0 }));
  }

  subjectCount(): number {
    return this.#sql.exec<{ count: number }>("SELECT COUNT(DISTINCT subject) AS count FROM versions").one().count;
  }

  insertVersion(row: VersionRow): void {
    this.#sql.exec("INSERT INTO versions (subject, version, schema_id, deleted) VALUES (?, ?, ?, ?)", row.subject, row.version, row.schemaId, row.deleted ? 1 : 0);
  }

  markVersionDeleted(subject: string, version: number): void {
    this.#sql.exec("UPDATE versions SET deleted = 1 WHERE subject = ? AND version = ?", subject, version);
  }

  removeVersion(subject: string, version: number): void {
    this.#sql.exec("DELETE FROM versions WHERE subject = ? AND version = ?", subject, version);
  }

  referencedBy(subject: string, version: number): number[] {
    return this.#sql
      .exec<{ schema_id: number }>(
        `SELECT DISTINCT r.schema_id FROM schema_refs r
         WHERE r.subject = ? AND r.version = ? AND EXISTS (SELECT 1 FROM versions v WHERE v.schema_id = r.schema_id)
         ORDER BY r.schema_id`,
        subject,
        version,
      )
      .toArray()
      .map((row) => row.schema_id);
  }

  /** Every row: the whole registry, sent to a replica that is behind. */
  rows(): RegistryRows {
    const schemas = this.#sql
      .exec<SchemaRow>("SELECT id, schema_type, schema, refs FROM schemas ORDER BY id")
      .toArray()
      .map((row) => ({ id: row.id, schemaType: row.schema_type, schema: row.schema, references: JSON.parse(row.refs) as SchemaReference[] }));
    const versions = this.#sql.exec<VersionSqlRow>("SELECT subject, version, schema_id, deleted FROM versions ORDER BY subject, version").toArray().map(versionOf);
    const settings = this.#sql
      .exec<{ scope: string; key: SettingKey; value: string }>("SELECT scope, key, value FROM settings ORDER BY scope, key")
      .toArray()
      .map((row) => ({ subject: row.scope === "global" ? undefined : row.scope.slice("subject:".length), key: row.key, value: row.value }));
    return { schemas, versions, settings };
  }

  /** Replaces every row by `rows` (the caller runs it in one transaction). */
  replaceRows(rows: RegistryRows): void {
    for (const table of ["schemas", "versions", "schema_refs", "settings"]) this.#sql.exec(`DELETE FROM ${table}`);
    for (const schema of rows.schemas) this.insertSchema(schema);
    for (const row of rows.versions) this.insertVersion(row);
    for (const setting of rows.settings) this.setSetting(setting.subject, setting.key, setting.value);
  }

  setting(subject: string | undefined, key: SettingKey): string | undefined {
    return this.#sql.exec<{ value: string }>("SELECT value FROM settings WHERE scope = ? AND key = ?", scopeOf(subject), key).toArray()[0]?.value;
  }

  setSetting(subject: string | undefined, key: SettingKey, value: string | undefined): void {
    if (value === undefined) this.#sql.exec("DELETE FROM settings WHERE scope = ? AND key = ?", scopeOf(subject), key);
    else this.#sql.exec("INSERT INTO settings (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value", scopeOf(subject), key, value);
  }
}
