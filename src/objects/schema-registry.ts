import { DurableObject } from "cloudflare:workers";
import type { RegistryMode, CompatibilityLevel } from "../registry/compatibility.ts";
import {
  deleteConfig,
  deleteMode,
  deleteSubject,
  deleteVersion,
  getConfig,
  getMode,
  schemaById,
  schemasForValidation,
  schemaTexts,
  setConfig,
  setMode,
  testCompatibility,
  versionsOfSchema,
  type SchemaById,
  type SchemaSubjects,
  type SchemaText,
} from "../registry/registry-admin.ts";
import { RegistryCore, type SchemaRequest, type SubjectVersion } from "../registry/registry-core.ts";
import { toRegistryResult, type RegistryResult } from "../registry/registry-errors.ts";
import { applyMigrations } from "./schema.ts";
import { schemaRegistryMigrations, SqliteRegistryStore } from "./schema-registry-store.ts";

/**
 * The schema registry (docs/schema-registry.md): one object per deployment holding every
 * subject, version, schema id, config and mode in its SQLite, so ids are global and dense
 * and a registration's compatibility check and write happen in one turn, with no other
 * registration between them. Each call runs in one SQLite transaction: a refused call writes
 * nothing. The rules are src/registry/; this object only stores and answers, errors as values
 * (RegistryResult) since a thrown error's fields do not survive RPC.
 *
 * One object is the registry's throughput bound (one thread): registrations are rare, and reads
 * by id, what serializers do per record, are cached by every router isolate (ids are immutable).
 */
export class SchemaRegistry extends DurableObject<Env> {
  readonly #core: RegistryCore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#core = new RegistryCore(new SqliteRegistryStore(ctx.storage.sql));
    void ctx.blockConcurrencyWhile(async () => applyMigrations(ctx.storage.sql, schemaRegistryMigrations));
  }

  #run<T>(body: (core: RegistryCore) => T): RegistryResult<T> {
    return toRegistryResult(() => this.ctx.storage.transactionSync(() => body(this.#core)));
  }

  async subjects(deleted: boolean, prefix: string): Promise<RegistryResult<string[]>> {
    return this.#run((core) => core.subjects(deleted, prefix));
  }

  async versions(subject: string, deleted: boolean): Promise<RegistryResult<number[]>> {
    return this.#run((core) => core.versions(subject, deleted));
  }

  async version(subject: string, version: string, deleted: boolean): Promise<RegistryResult<SubjectVersion>> {
    return this.#run((core) => core.version(subject, version, deleted));
  }

  async referencedBy(subject: string, version: string): Promise<RegistryResult<number[]>> {
    return this.#run((core) => core.referencedBy(subject, version));
  }

  async register(subject: string, request: SchemaRequest, normalize: boolean): Promise<RegistryResult<{ id: number }>> {
    return this.#run((core) => core.register(subject, request, normalize));
  }

  async lookup(subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): Promise<RegistryResult<SubjectVersion>> {
    return this.#run((core) => core.lookup(subject, request, normalize, deleted));
  }

  async deleteVersion(subject: string, version: string, permanent: boolean): Promise<RegistryResult<number>> {
    return this.#run((core) => deleteVersion(core, subject, version, permanent));
  }

  async deleteSubject(subject: string, permanent: boolean): Promise<RegistryResult<number[]>> {
    return this.#run((core) => deleteSubject(core, subject, permanent));
  }

  async schemaById(id: number): Promise<RegistryResult<SchemaById>> {
    return this.#run((core) => schemaById(core, id));
  }

  /** Schema id validation's lookup (src/data-plane/schema-id-checks.ts): the ids' schemas, subjects and record names, in one call. */
  async schemasForValidation(ids: number[]): Promise<RegistryResult<SchemaSubjects[]>> {
    return this.#run((core) => schemasForValidation(core, ids));
  }

  /** Full validation's and decode=schema's lookup (src/data-plane/parsed-schemas.ts): the ids' texts with their references, parsed by the caller. */
  async schemaTexts(ids: number[]): Promise<RegistryResult<SchemaText[]>> {
    return this.#run((core) => schemaTexts(core, ids));
  }

  async versionsOfSchema(id: number, deleted: boolean): Promise<RegistryResult<{ subject: string; version: number }[]>> {
    return this.#run((core) => versionsOfSchema(core, id, deleted));
  }

  async testCompatibility(
    subject: string,
    version: string | undefined,
    request: SchemaRequest,
    normalize: boolean,
  ): Promise<RegistryResult<{ is_compatible: boolean; messages: string[] }>> {
    return this.#run((core) => testCompatibility(core, subject, version, request, normalize));
  }

  async getConfig(subject: string | undefined, defaultToGlobal: boolean): Promise<RegistryResult<{ compatibilityLevel: CompatibilityLevel }>> {
    return this.#run((core) => getConfig(core, subject, defaultToGlobal));
  }

  async setConfig(subject: string | undefined, level: unknown): Promise<RegistryResult<{ compatibility: CompatibilityLevel }>> {
    return this.#run((core) => setConfig(core, subject, level));
  }

  async deleteConfig(subject: string | undefined): Promise<RegistryResult<{ compatibilityLevel: CompatibilityLevel }>> {
    return this.#run((core) => deleteConfig(core, subject));
  }

  async getMode(subject: string | undefined, defaultToGlobal: boolean): Promise<RegistryResult<{ mode: RegistryMode }>> {
    return this.#run((core) => getMode(core, subject, defaultToGlobal));
  }

  async setMode(subject: string | undefined, mode: unknown, force: boolean): Promise<RegistryResult<{ mode: RegistryMode }>> {
    return this.#run((core) => setMode(core, subject, mode, force));
  }

  async deleteMode(subject: string): Promise<RegistryResult<{ mode: RegistryMode }>> {
    return this.#run((core) => deleteMode(core, subject));
  }
}
