import type { RegistryStore, SettingKey, StoredSchema, VersionRow } from "../../../../src/registry/registry-store.ts";
import type { SchemaReference } from "../../../../src/registry/schema-types.ts";

/**
 * The registry's store in memory, for running its rules (src/registry/registry-core.ts) in Node.
 * The registry object's SQLite store (src/objects/schema-registry-store.ts) is what production
 * runs; the workers layer tests it through the API.
 */
export class MemoryRegistryStore implements RegistryStore {
  readonly schemas = new Map<number, StoredSchema>();
  readonly versions: VersionRow[] = [];
  readonly settings = new Map<string, string>();

  #identity(schemaType: string, schema: string, references: readonly SchemaReference[]): string {
    return JSON.stringify([schemaType, references, schema]);
  }

  schemaById(id: number): StoredSchema | undefined {
    return this.schemas.get(id);
  }

  schemaIdOf(schemaType: string, schema: string, references: readonly SchemaReference[]): number | undefined {
    const wanted = this.#identity(schemaType, schema, references);
    for (const stored of this.schemas.values()) if (this.#identity(stored.schemaType, stored.schema, stored.references) === wanted) return stored.id;
    return undefined;
  }

  maxSchemaId(): number {
    return Math.max(0, ...this.schemas.keys());
  }

  insertSchema(schema: StoredSchema): void {
    if (this.schemas.has(schema.id)) throw new Error(`schema ${schema.id} exists`);
    this.schemas.set(schema.id, schema);
  }

  versionsOf(subject: string): VersionRow[] {
    return this.versions.filter((row) => row.subject === subject).sort((a, b) => a.version - b.version).map((row) => ({ ...row }));
  }

  versionsOfSchema(id: number): VersionRow[] {
    return this.versions.filter((row) => row.schemaId === id).map((row) => ({ ...row }));
  }

  subjects(): { subject: string; deleted: boolean }[] {
    const subjects = [...new Set(this.versions.map((row) => row.subject))];
    return subjects.map((subject) => ({ subject, deleted: this.versions.every((row) => row.subject !== subject || row.deleted) }));
  }

  subjectCount(): number {
    return new Set(this.versions.map((row) => row.subject)).size;
  }

  insertVersion(row: VersionRow): void {
    if (this.versions.some((other) => other.subject === row.subject && other.version === row.version)) throw new Error("version exists");
    this.versions.push({ ...row });
  }

  markVersionDeleted(subject: string, version: number): void {
    for (const row of this.versions) if (row.subject === subject && row.version === version) row.deleted = true;
  }

  removeVersion(subject: string, version: number): void {
    const index = this.versions.findIndex((row) => row.subject === subject && row.version === version);
    if (index >= 0) this.versions.splice(index, 1);
  }

  referencedBy(subject: string, version: number): number[] {
    return [...this.schemas.values()]
      .filter((schema) => schema.references.some((reference) => reference.subject === subject && reference.version === version))
      .filter((schema) => this.versions.some((row) => row.schemaId === schema.id))
      .map((schema) => schema.id)
      .sort((a, b) => a - b);
  }

  setting(subject: string | undefined, key: SettingKey): string | undefined {
    return this.settings.get(`${subject === undefined ? "global" : `subject:${subject}`}/${key}`);
  }

  setSetting(subject: string | undefined, key: SettingKey, value: string | undefined): void {
    const name = `${subject === undefined ? "global" : `subject:${subject}`}/${key}`;
    if (value === undefined) this.settings.delete(name);
    else this.settings.set(name, value);
  }
}
