import { StateReplica, noEpoch, otherRegions, type PullAnswer, type PushOutcome, type StateSnapshot } from "../replication/state-replication.ts";
import type { CountedSql } from "./counted-sql.ts";
import type { SharePartitionKey, SharePartitionRef, ShareStatePayload, VersionedShareConfigs } from "../contracts/share-partition-api.ts";
import { sharePartitionStub } from "../contracts/stubs.ts";

/**
 * A share-partition state replica's storage and its calls to the other regions' replicas
 * (src/replication/state-replication.ts has the rules). Its row: the snapshot (key, configs,
 * window, stamp) in `share_partition`, one statement per write; the seen and leading epochs and
 * the version count of a cleared state in `share_partition_epochs`, written only when they
 * change (a takeover, a deposition, a push or pull of a newer epoch, a clear).
 */
export const shareStateMigrations = [
  `CREATE TABLE share_partition (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     key TEXT NOT NULL,
     configs TEXT NOT NULL,
     configs_version INTEGER NOT NULL,
     state TEXT
   )`,
  // Issue 15, replication: the snapshot's stamp, and the epochs a replica has seen and leads at.
  `ALTER TABLE share_partition ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE share_partition ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE share_partition_epochs (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     seen_epoch INTEGER NOT NULL,
     leading_epoch INTEGER NOT NULL,
     version_floor INTEGER NOT NULL
   )`,
];

export type ShareSnapshot = StateSnapshot<ShareStatePayload>;

type SnapshotRow = {
  key: string;
  configs: string;
  configs_version: number;
  state: string | null;
  epoch: number;
  version: number;
};

export class ShareStateRows {
  readonly #sql: CountedSql;

  constructor(sql: CountedSql) {
    this.#sql = sql;
  }

  /** The replica as its rows left it (a restarted object forgets no epoch and no write). */
  load(): StateReplica<ShareStatePayload> {
    const storage = this.#sql.storage;
    const row = storage.exec<SnapshotRow>("SELECT key, configs, configs_version, state, epoch, version FROM share_partition WHERE id = 1").toArray()[0];
    const epochs = storage.exec<{ seen_epoch: number; leading_epoch: number; version_floor: number }>("SELECT seen_epoch, leading_epoch, version_floor FROM share_partition_epochs WHERE id = 1").toArray()[0];
    const current: ShareSnapshot | null =
      row === undefined
        ? null
        : {
            epoch: row.epoch,
            version: row.version,
            payload: {
              key: JSON.parse(row.key) as SharePartitionRef,
              configs: { version: row.configs_version, configs: JSON.parse(row.configs) as Record<string, string> },
              state: row.state,
            },
          };
    return new StateReplica(epochs?.seen_epoch ?? noEpoch, epochs?.leading_epoch ?? noEpoch, current, epochs?.version_floor ?? 0);
  }

  /** The snapshot as the replica's one row (one statement: atomic). */
  saveSnapshot(snapshot: ShareSnapshot): void {
    const { key, configs, state } = snapshot.payload;
    this.#sql.storage.exec(
      `INSERT INTO share_partition (id, key, configs, configs_version, state, epoch, version) VALUES (1, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET key = excluded.key, configs = excluded.configs, configs_version = excluded.configs_version,
         state = excluded.state, epoch = excluded.epoch, version = excluded.version`,
      JSON.stringify(key),
      JSON.stringify(configs.configs),
      configs.version,
      state,
      snapshot.epoch,
      snapshot.version,
    );
  }

  saveConfigs(configs: VersionedShareConfigs): void {
    this.#sql.storage.exec("UPDATE share_partition SET configs = ?, configs_version = ? WHERE id = 1", JSON.stringify(configs.configs), configs.version);
  }

  saveEpochs(replica: StateReplica<ShareStatePayload>): void {
    this.#sql.storage.exec(
      `INSERT INTO share_partition_epochs (id, seen_epoch, leading_epoch, version_floor) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET seen_epoch = excluded.seen_epoch, leading_epoch = excluded.leading_epoch, version_floor = excluded.version_floor`,
      replica.seenEpoch,
      replica.leadingEpoch,
      replica.versionFloor,
    );
  }

  /** Forgets the snapshot; the epochs and the version count stay (a deposed leader must still be refused). */
  clear(replica: StateReplica<ShareStatePayload>): void {
    replica.clear();
    this.#sql.storage.exec("DELETE FROM share_partition");
    this.saveEpochs(replica);
  }
}

/** What a replica stores of a leader call's key: which share-partition, not the placement of the moment. */
export function refOf(key: SharePartitionKey): SharePartitionRef {
  return { group: key.group, topic: key.topic, topicId: key.topicId, partition: key.partition, region: key.region, replicas: key.replicas };
}

/** The newer of two configs versions (pushes, registrations and snapshots may arrive in any order). */
export function newerConfigs(a: VersionedShareConfigs, b: VersionedShareConfigs | null): VersionedShareConfigs {
  return b !== null && b.version > a.version ? b : a;
}

/** Pushes the snapshot to the replicas of `regions`, in parallel; a replica that does not answer is unreachable. */
export async function pushSnapshot(env: Env, key: SharePartitionKey, snapshot: ShareSnapshot, regions: readonly string[]): Promise<PushOutcome[]> {
  return Promise.all(
    regions.map(async (region): Promise<PushOutcome> => {
      try {
        const answer = await sharePartitionStub(env, { ...key, region }).replicate(snapshot);
        return answer.ok ? { region, answer: answer.value } : { region, unreachable: true };
      } catch {
        return { region, unreachable: true };
      }
    }),
  );
}

/** Pulls the other regions' snapshots at a takeover, fencing each at `epoch`; unreachable ones are skipped. */
export async function pullSnapshots(env: Env, key: SharePartitionKey, epoch: number): Promise<PullAnswer<ShareStatePayload>[]> {
  const answers = await Promise.all(
    otherRegions(key.replicas, key.region).map(async (region) => {
      try {
        const answer = await sharePartitionStub(env, { ...key, region }).pull(epoch);
        return answer.ok ? answer.value : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return answers.filter((answer) => answer !== undefined);
}
