import type { RegistryStore, SettingKey, StoredSchema, VersionRow } from "./registry-store.ts";
import type { SchemaReference } from "./schema-types.ts";

/**
 * What the registry's leader pushes to the other regions' replicas (docs/schema-registry.md,
 * "Replication across regions"): a call's writes as the store saw them, not the registry, which
 * may hold thousands of schemas. The rules write only through the store's five mutations, so
 * recording those and replaying them in order on another store leaves it with the same rows.
 * Pure: the objects carry the changes and apply them in one SQLite transaction.
 */
export type RegistryChange =
  | { op: "insertSchema"; schema: StoredSchema }
  | { op: "insertVersion"; row: VersionRow }
  | { op: "markVersionDeleted"; subject: string; version: number }
  | { op: "removeVersion"; subject: string; version: number }
  | { op: "setSetting"; subject: string | undefined; key: SettingKey; value: string | undefined };

/** The whole registry as rows: what a replica that is behind (or new) is sent instead of a change. */
export interface RegistryRows {
  schemas: StoredSchema[];
  versions: VersionRow[];
  settings: { subject: string | undefined; key: SettingKey; value: string }[];
}

/** A store that records every write it passes on (reads go straight through). */
export class RecordingRegistryStore implements RegistryStore {
  readonly #store: RegistryStore;
  #changes: RegistryChange[] = [];

  constructor(store: RegistryStore) {
    this.#store = store;
  }

  /** The writes recorded since the last call, and forgets them. */
  takeChanges(): RegistryChange[] {
    const changes = this.#changes;
    this.#changes = [];
    return changes;
  }

  schemaById(id: number): StoredSchema | undefined {
    return this.#store.schemaById(id);
  }

  schemaIdOf(schemaType: string, schema: string, references: readonly SchemaReference[]): number | undefined {
    return this.#store.schemaIdOf(schemaType, schema, references);
  }

  maxSchemaId(): number {
    return this.#store.maxSchemaId();
  }

  insertSchema(schema: StoredSchema): void {
    this.#store.insertSchema(schema);
    this.#changes.push({ op: "insertSchema", schema });
  }

  versionsOf(subject: string): VersionRow[] {
    return this.#store.versionsOf(subject);
  }

  versionsOfSchema(id: number): VersionRow[] {
    return this.#store.versionsOfSchema(id);
  }

  subjects(): { subject: string; deleted: boolean }[] {
    return this.#store.subjects();
  }

  subjectCount(): number {
    return this.#store.subjectCount();
  }

  insertVersion(row: VersionRow): void {
    this.#store.insertVersion(row);
    this.#changes.push({ op: "insertVersion", row });
  }

  markVersionDeleted(subject: string, version: number): void {
    this.#store.markVersionDeleted(subject, version);
    this.#changes.push({ op: "markVersionDeleted", subject, version });
  }

  removeVersion(subject: string, version: number): void {
    this.#store.removeVersion(subject, version);
    this.#changes.push({ op: "removeVersion", subject, version });
  }

  referencedBy(subject: string, version: number): number[] {
    return this.#store.referencedBy(subject, version);
  }

  setting(subject: string | undefined, key: SettingKey): string | undefined {
    return this.#store.setting(subject, key);
  }

  setSetting(subject: string | undefined, key: SettingKey, value: string | undefined): void {
    this.#store.setSetting(subject, key, value);
    this.#changes.push({ op: "setSetting", subject, key, value });
  }
}

/** Replays recorded writes, in order, on another store. */
export function applyChanges(store: RegistryStore, changes: readonly RegistryChange[]): void {
  for (const change of changes) {
    switch (change.op) {
      case "insertSchema":
        store.insertSchema(change.schema);
        break;
      case "insertVersion":
        store.insertVersion(change.row);
        break;
      case "markVersionDeleted":
        store.markVersionDeleted(change.subject, change.version);
        break;
      case "removeVersion":
        store.removeVersion(change.subject, change.version);
        break;
      case "setSetting":
        store.setSetting(change.subject, change.key, change.value);
        break;
    }
  }
}
