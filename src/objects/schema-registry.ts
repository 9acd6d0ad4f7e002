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
import { RecordingRegistryStore, applyChanges, type RegistryChange, type RegistryRows } from "../registry/registry-changes.ts";
import { toResult, type Result } from "../errors.ts";
import type { ChangeAnswer, PullAnswer, PushAnswer, StateReplica, StateStamp } from "../replication/state-replication.ts";
import { checkFaultsEnabled, type Fault } from "../contracts/faults.ts";
import type { RegistryKey } from "../contracts/schema-registry-api.ts";
import { applyMigrations } from "./schema.ts";
import { schemaRegistryMigrations, SqliteRegistryStore } from "./schema-registry-store.ts";
import { RegistryLeadership, registryNotLeader } from "./registry-leadership.ts";
import { loadRegistryReplica, saveRegistryReplica, stampOf, type RegistryStamp } from "./registry-replica-rows.ts";
import { ReplicaFaults } from "./replica-faults.ts";
import { TakeoverGate } from "./state-leadership.ts";

/**
 * One replica of the schema registry (docs/schema-registry.md): one object per replica region
 * of the registry's anchor partition (src/contracts/schema-registry-api.ts), each holding every
 * subject, version, schema id, config and mode in its SQLite. The caller calls the one in the
 * anchor's leader region with the placement it knows; that one leads at the anchor's leader
 * epoch (src/replication/state-replication.ts's rules, src/objects/registry-leadership.ts):
 * it serves the call in one SQLite transaction (a refused call writes nothing), stamps what
 * the call wrote, and pushes it to the other regions' replicas before it answers. Calls run
 * one at a time, a write's push included, so no call sees a write not yet committed and ids
 * stay global and dense. The rules are src/registry/; errors as values (RegistryResult inside
 * Result: the registry's own errors, and the leadership's as Tributary's).
 *
 * Calls are few (registrations are rare; reads by id, what serializers do per record, are
 * cached by every router isolate, ids being immutable), so one leader at a time is no bound.
 */
export class SchemaRegistry extends DurableObject<Env> {
  readonly #store: SqliteRegistryStore;
  readonly #recording: RecordingRegistryStore;
  readonly #core: RegistryCore;
  readonly #leadership: RegistryLeadership;
  readonly #faults = new ReplicaFaults();
  #replica!: StateReplica<null>;
  /** The calls served one at a time (a write's push included). */
  #queue: Promise<unknown> = Promise.resolve();
  readonly #gate = new TakeoverGate();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SqliteRegistryStore(ctx.storage.sql);
    this.#recording = new RecordingRegistryStore(this.#store);
    this.#core = new RegistryCore(this.#recording);
    const storage = { sql: ctx.storage.sql, rows: () => this.#store.rows(), install: (stamp: RegistryStamp, rows: RegistryRows) => this.#install(stamp, rows) };
    this.#leadership = new RegistryLeadership(env, storage, () => this.#replica);
    void ctx.blockConcurrencyWhile(async () => {
      applyMigrations(ctx.storage.sql, schemaRegistryMigrations);
      this.#replica = loadRegistryReplica(ctx.storage.sql);
    });
  }

  /** Serves `body` as the leader at the key's epoch; what it wrote is committed in the other regions before the answer. */
  #run<T>(key: RegistryKey, body: (core: RegistryCore) => T): Promise<Result<RegistryResult<T>>> {
    const call = this.#queue.then(() =>
      toResult(async () => {
        await this.#faults.beforeCall();
        await this.#lead(key);
        await this.#leadership.syncLagging(key);
        const base = this.#replica.current;
        let changes: RegistryChange[] = [];
        let answer: RegistryResult<T>;
        try {
          answer = toRegistryResult(() =>
            this.ctx.storage.transactionSync(() => {
              const value = body(this.#core);
              changes = this.#recording.takeChanges();
              if (changes.length > 0) {
                this.#replica.stamp(null);
                saveRegistryReplica(this.ctx.storage.sql, this.#replica);
              }
              return value;
            }),
          );
        } finally {
          this.#recording.takeChanges(); // a refused call's writes were rolled back
        }
        const next = this.#replica.current;
        if (!answer.ok && next !== base) this.#replica = loadRegistryReplica(this.ctx.storage.sql); // the stamp was rolled back too
        else if (changes.length > 0 && next !== null) await this.#leadership.replicateChange(key, base, next, changes);
        return answer;
      }),
    );
    this.#queue = call.catch(() => undefined);
    return call;
  }

  #lead(key: RegistryKey): Promise<void> {
    return this.#gate.lead(() => this.#replica, key.leaderEpoch, (seen) => registryNotLeader(key, seen), () => this.#leadership.takeOver(key));
  }

  #install(stamp: RegistryStamp, rows: RegistryRows): void {
    this.ctx.storage.transactionSync(() => {
      this.#store.replaceRows(rows);
      this.#replica.current = { epoch: stamp.epoch, version: stamp.version, payload: null };
      saveRegistryReplica(this.ctx.storage.sql, this.#replica);
    });
  }

  /** A leader's change on top of `base`: applied with its stamp in one transaction when this replica holds `base`; else behind. */
  async applyChange(base: StateStamp | null, next: RegistryStamp, changes: RegistryChange[]): Promise<Result<ChangeAnswer>> {
    await this.#faults.beforeCall();
    return this.#replicated(() => {
      const before = this.#replica.current;
      const answer = this.#replica.acceptChange(base, { epoch: next.epoch, version: next.version, payload: null });
      if (this.#replica.current !== before) applyChanges(this.#store, changes);
      return answer;
    });
  }

  /** A leader's whole registry, for a replica that was behind: stored when its stamp is not older than this replica's. */
  async installRows(next: RegistryStamp, rows: RegistryRows): Promise<Result<PushAnswer>> {
    await this.#faults.beforeCall();
    return this.#replicated(() => {
      const before = this.#replica.current;
      const answer = this.#replica.acceptPush({ epoch: next.epoch, version: next.version, payload: null });
      if (this.#replica.current !== before) this.#store.replaceRows(rows);
      return answer;
    });
  }

  /** A new leader's pull at its takeover: this replica's stamp, and from now on it refuses older epochs. */
  async pullStamp(epoch: number): Promise<Result<PullAnswer<null>>> {
    await this.#faults.beforeCall();
    return this.#replicated(() => this.#replica.answerPull(epoch));
  }

  /** The rows, for a new leader at `epoch` that found this replica's stamp the newest. */
  async rowsAt(epoch: number): Promise<Result<{ refusedAt: number } | { stamp: RegistryStamp; rows: RegistryRows }>> {
    await this.#faults.beforeCall();
    return toResult(() => {
      const current = this.#replica.current;
      if (epoch < this.#replica.seenEpoch || current === null) return { refusedAt: this.#replica.seenEpoch };
      return { stamp: current, rows: this.#store.rows() };
    });
  }

  /** Only on the object of the registry before replication (legacySchemaRegistryStub): its rows, for the first replicated leader. */
  async legacyRows(): Promise<Result<RegistryRows>> {
    return toResult(() => this.#store.rows());
  }

  /** Runs a replica-side rule and stores what it changed in one transaction; on failure, the replica as its rows are. */
  #replicated<T>(rule: () => T): Promise<Result<T>> {
    return toResult(() => {
      try {
        return this.ctx.storage.transactionSync(() => {
          const answer = rule();
          saveRegistryReplica(this.ctx.storage.sql, this.#replica);
          return answer;
        });
      } catch (error) {
        this.#replica = loadRegistryReplica(this.ctx.storage.sql);
        throw error;
      }
    });
  }

  /** Fault injection (TRIBUTARY_FAULTS=1): down, slow, none — tests take a region's replica away. */
  async setFault(fault: Fault, ms: number): Promise<Result<void>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      this.#faults.set(fault === "crash-after-write" ? "none" : fault, ms);
    });
  }

  /** This replica's place in the replication (TRIBUTARY_FAULTS=1 only). */
  async replicationState(): Promise<Result<{ seenEpoch: number; leadingEpoch: number; stamp: StateStamp | null }>> {
    return toResult(() => {
      checkFaultsEnabled(this.env);
      return { seenEpoch: this.#replica.seenEpoch, leadingEpoch: this.#replica.leadingEpoch, stamp: stampOf(this.#replica.current) };
    });
  }

  async subjects(key: RegistryKey, deleted: boolean, prefix: string): Promise<Result<RegistryResult<string[]>>> {
    return this.#run(key, (core) => core.subjects(deleted, prefix));
  }

  async versions(key: RegistryKey, subject: string, deleted: boolean): Promise<Result<RegistryResult<number[]>>> {
    return this.#run(key, (core) => core.versions(subject, deleted));
  }

  async version(key: RegistryKey, subject: string, version: string, deleted: boolean): Promise<Result<RegistryResult<SubjectVersion>>> {
    return this.#run(key, (core) => core.version(subject, version, deleted));
  }

  async referencedBy(key: RegistryKey, subject: string, version: string): Promise<Result<RegistryResult<number[]>>> {
    return this.#run(key, (core) => core.referencedBy(subject, version));
  }

  async register(key: RegistryKey, subject: string, request: SchemaRequest, normalize: boolean): Promise<Result<RegistryResult<{ id: number }>>> {
    return this.#run(key, (core) => core.register(subject, request, normalize));
  }

  async lookup(key: RegistryKey, subject: string, request: SchemaRequest, normalize: boolean, deleted: boolean): Promise<Result<RegistryResult<SubjectVersion>>> {
    return this.#run(key, (core) => core.lookup(subject, request, normalize, deleted));
  }

  async deleteVersion(key: RegistryKey, subject: string, version: string, permanent: boolean): Promise<Result<RegistryResult<number>>> {
    return this.#run(key, (core) => deleteVersion(core, subject, version, permanent));
  }

  async deleteSubject(key: RegistryKey, subject: string, permanent: boolean): Promise<Result<RegistryResult<number[]>>> {
    return this.#run(key, (core) => deleteSubject(core, subject, permanent));
  }

  async schemaById(key: RegistryKey, id: number): Promise<Result<RegistryResult<SchemaById>>> {
    return this.#run(key, (core) => schemaById(core, id));
  }

  /** Schema id validation's lookup (src/data-plane/schema-id-checks.ts): the ids' schemas, subjects and record names, in one call. */
  async schemasForValidation(key: RegistryKey, ids: number[]): Promise<Result<RegistryResult<SchemaSubjects[]>>> {
    return this.#run(key, (core) => schemasForValidation(core, ids));
  }

  /** Full validation's and decode=schema's lookup (src/data-plane/parsed-schemas.ts): the ids' texts with their references, parsed by the caller. */
  async schemaTexts(key: RegistryKey, ids: number[]): Promise<Result<RegistryResult<SchemaText[]>>> {
    return this.#run(key, (core) => schemaTexts(core, ids));
  }

  async versionsOfSchema(key: RegistryKey, id: number, deleted: boolean): Promise<Result<RegistryResult<{ subject: string; version: number }[]>>> {
    return this.#run(key, (core) => versionsOfSchema(core, id, deleted));
  }

  async testCompatibility(key: RegistryKey, subject: string,
    version: string | undefined,
    request: SchemaRequest,
    normalize: boolean,
  ): Promise<Result<RegistryResult<{ is_compatible: boolean; messages: string[] }>>> {
    return this.#run(key, (core) => testCompatibility(core, subject, version, request, normalize));
  }

  async getConfig(key: RegistryKey, subject: string | undefined, defaultToGlobal: boolean): Promise<Result<RegistryResult<{ compatibilityLevel: CompatibilityLevel }>>> {
    return this.#run(key, (core) => getConfig(core, subject, defaultToGlobal));
  }

  async setConfig(key: RegistryKey, subject: string | undefined, level: unknown): Promise<Result<RegistryResult<{ compatibility: CompatibilityLevel }>>> {
    return this.#run(key, (core) => setConfig(core, subject, level));
  }

  async deleteConfig(key: RegistryKey, subject: string | undefined): Promise<Result<RegistryResult<{ compatibilityLevel: CompatibilityLevel }>>> {
    return this.#run(key, (core) => deleteConfig(core, subject));
  }

  async getMode(key: RegistryKey, subject: string | undefined, defaultToGlobal: boolean): Promise<Result<RegistryResult<{ mode: RegistryMode }>>> {
    return this.#run(key, (core) => getMode(core, subject, defaultToGlobal));
  }

  async setMode(key: RegistryKey, subject: string | undefined, mode: unknown, force: boolean): Promise<Result<RegistryResult<{ mode: RegistryMode }>>> {
    return this.#run(key, (core) => setMode(core, subject, mode, force));
  }

  async deleteMode(key: RegistryKey, subject: string): Promise<Result<RegistryResult<{ mode: RegistryMode }>>> {
    return this.#run(key, (core) => deleteMode(core, subject));
  }
}
