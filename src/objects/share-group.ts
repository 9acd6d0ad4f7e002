import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type Result } from "../errors.ts";
import { shareGroupPartitionsMax, shareGroupsMax } from "../limits.ts";
import { effectiveShareGroupConfigs, mergeShareGroupConfigs, type ShareGroupConfigs } from "../share/share-configs.ts";
import { applyMigrations } from "./schema.ts";
import type { SharePartitionRef, VersionedShareConfigs } from "../contracts/share-partition-api.ts";
import { shareGroupIndexStub, sharePartitionStub } from "../contracts/stubs.ts";

/**
 * One share group (docs/api.md, Share groups): its configs and the share-partitions it has
 * (each a SharePartitionState object, src/objects/share-partition-state.ts). It never sees a
 * record: fetches and acknowledgements go from the router to the share-partitions. A config
 * change is pushed to every share-partition before it answers, each push carrying a version
 * so a late one never overwrites a newer one. A group exists from its first fetch (its first
 * share-partition registering) or its first config change, until it is deleted; the index
 * object (ShareGroupIndex) lists the groups that exist.
 */
const migrations = [
  `CREATE TABLE share_group (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     name TEXT NOT NULL,
     configs TEXT NOT NULL,
     version INTEGER NOT NULL
   );
   CREATE TABLE share_group_partitions (
     topic_id TEXT NOT NULL,
     partition INTEGER NOT NULL,
     topic TEXT NOT NULL,
     region TEXT NOT NULL,
     PRIMARY KEY (topic_id, partition)
   )`,
  // Issue 15, replication: the partition's replica regions (JSON), each holding a state replica that config pushes reach.
  `ALTER TABLE share_group_partitions ADD COLUMN replicas TEXT`,
];

export interface ShareGroupView {
  group: string;
  configs: Record<string, string>;
  partitions: SharePartitionRef[];
}

export class ShareGroup extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => applyMigrations(ctx.storage.sql, migrations));
  }

  /**
   * A share-partition's state replica registers when it starts (or takes over): the partition
   * joins the group (which comes to exist) and the replica learns the configs. `legacy`: the
   * partition registered before its state was replicated, and its old object was not taken
   * over yet (registerReplicas records that it was).
   */
  async register(group: string, key: SharePartitionRef): Promise<Result<{ configs: VersionedShareConfigs; legacy: boolean }>> {
    return toResult(async () => {
      const current = await this.#ensure(group);
      const sql = this.ctx.storage.sql;
      const row = sql.exec<{ replicas: string | null }>("SELECT replicas FROM share_group_partitions WHERE topic_id = ? AND partition = ?", key.topicId, key.partition).toArray()[0];
      if (row === undefined) {
        const count = sql.exec<{ count: number }>("SELECT count(*) AS count FROM share_group_partitions").one().count;
        if (count >= shareGroupPartitionsMax) {
          throw new TributaryError("INVALID_REQUEST", `a share group fetches from at most ${shareGroupPartitionsMax} partitions`);
        }
        sql.exec("INSERT INTO share_group_partitions (topic_id, partition, topic, region, replicas) VALUES (?, ?, ?, ?, ?)", key.topicId, key.partition, key.topic, key.region, replicasOf(key));
      }
      return { configs: current, legacy: row !== undefined && row.replicas === null };
    });
  }

  /** The partition's replica regions (its config pushes reach each), once a legacy share-partition's state was taken over. */
  async registerReplicas(group: string, key: SharePartitionRef): Promise<Result<void>> {
    return toResult(() => {
      this.ctx.storage.sql.exec("UPDATE share_group_partitions SET region = ?, replicas = ? WHERE topic_id = ? AND partition = ?", key.region, replicasOf(key), key.topicId, key.partition);
    });
  }

  /** Merges config changes (validated again here; the router checked that a dead-letter topic exists) and pushes them to every share-partition. */
  async alterConfigs(group: string, changes: Record<string, unknown>): Promise<Result<Record<string, string>>> {
    return toResult(async () => {
      const current = await this.#ensure(group);
      const merged = mergeShareGroupConfigs(current.configs as ShareGroupConfigs, changes);
      const next: VersionedShareConfigs = { version: nextVersion(current.version), configs: merged as Record<string, string> };
      this.ctx.storage.sql.exec("UPDATE share_group SET configs = ?, version = ? WHERE id = 1", JSON.stringify(next.configs), next.version);
      // Every region's state replica: whichever leads the share-partition now or later has them.
      const replicas = this.#partitions().flatMap((key) => (key.replicas ?? [key.region]).map((region) => ({ ...key, region })));
      await Promise.all(replicas.map(async (key) => unwrap(await sharePartitionStub(this.env, key).applyConfigs(next))));
      return effectiveShareGroupConfigs(merged);
    });
  }

  /** The group, or GROUP_ID_NOT_FOUND. */
  async view(group: string): Promise<Result<ShareGroupView>> {
    return toResult(() => {
      const current = this.#current();
      if (current === undefined) throw notFound(group);
      return { group, configs: effectiveShareGroupConfigs(current.configs as ShareGroupConfigs), partitions: this.#partitions() };
    });
  }

  /** Forgets the group (the router cleared its share-partitions first) and takes it out of the index. */
  async deleteGroup(group: string): Promise<Result<void>> {
    return toResult(async () => {
      if (this.#current() === undefined) throw notFound(group);
      unwrap(await shareGroupIndexStub(this.env).remove(group));
      await this.ctx.storage.deleteAll();
      applyMigrations(this.ctx.storage.sql, migrations);
    });
  }

  #current(): VersionedShareConfigs | undefined {
    const row = this.ctx.storage.sql.exec<{ configs: string; version: number }>("SELECT configs, version FROM share_group WHERE id = 1").toArray()[0];
    return row === undefined ? undefined : { version: row.version, configs: JSON.parse(row.configs) as Record<string, string> };
  }

  /** The group, created (and listed in the index) when it does not exist yet. */
  async #ensure(group: string): Promise<VersionedShareConfigs> {
    const current = this.#current();
    if (current !== undefined) return current;
    unwrap(await shareGroupIndexStub(this.env).add(group));
    const again = this.#current(); // another call may have created it meanwhile
    if (again !== undefined) return again;
    const version = nextVersion(0);
    this.ctx.storage.sql.exec("INSERT INTO share_group (id, name, configs, version) VALUES (1, ?, '{}', ?)", group, version);
    return { version, configs: {} };
  }

  #partitions(): SharePartitionRef[] {
    const group = this.ctx.storage.sql.exec<{ name: string }>("SELECT name FROM share_group WHERE id = 1").toArray()[0]?.name ?? "";
    return this.ctx.storage.sql
      .exec<{ topic_id: string; partition: number; topic: string; region: string; replicas: string | null }>(
        "SELECT topic_id, partition, topic, region, replicas FROM share_group_partitions ORDER BY topic, partition",
      )
      .toArray()
      .map((row) => ({
        group,
        topic: row.topic,
        topicId: row.topic_id,
        partition: row.partition,
        region: row.region,
        ...(row.replicas === null ? {} : { replicas: JSON.parse(row.replicas) as string[] }),
      }));
  }
}

/**
 * The index of share groups (one object): what `GET /v1/share-groups` lists. A group adds
 * itself when it comes to exist and removes itself when deleted.
 */
export class ShareGroupIndex extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => applyMigrations(ctx.storage.sql, ["CREATE TABLE share_groups (name TEXT PRIMARY KEY)"]));
  }

  async add(group: string): Promise<Result<void>> {
    return toResult(() => {
      const sql = this.ctx.storage.sql;
      if (sql.exec("SELECT 1 FROM share_groups WHERE name = ?", group).toArray().length > 0) return;
      if (sql.exec<{ count: number }>("SELECT count(*) AS count FROM share_groups").one().count >= shareGroupsMax) {
        throw new TributaryError("INVALID_REQUEST", `at most ${shareGroupsMax} share groups; delete unused ones`);
      }
      sql.exec("INSERT INTO share_groups (name) VALUES (?)", group);
    });
  }

  async remove(group: string): Promise<Result<void>> {
    return toResult(() => {
      this.ctx.storage.sql.exec("DELETE FROM share_groups WHERE name = ?", group);
    });
  }

  async list(): Promise<Result<string[]>> {
    return toResult(() => this.ctx.storage.sql.exec<{ name: string }>("SELECT name FROM share_groups ORDER BY name").toArray().map((row) => row.name));
  }
}

/**
 * A configs version after `current`: the clock's milliseconds when they are larger, so that a
 * group deleted and created again never counts from 1 again — a share-partition object that
 * outlived the old group would ignore the new group's pushes until they passed its old version.
 */
function nextVersion(current: number): number {
  return Math.max(current + 1, Date.now());
}

function notFound(group: string): TributaryError {
  return new TributaryError("GROUP_ID_NOT_FOUND", `share group ${JSON.stringify(group)} does not exist`);
}

function replicasOf(key: SharePartitionRef): string | null {
  return key.replicas === undefined ? null : JSON.stringify(key.replicas);
}
