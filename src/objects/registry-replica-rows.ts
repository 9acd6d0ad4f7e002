import { StateReplica, type StateSnapshot } from "../replication/state-replication.ts";

/**
 * A registry replica's place in the replication (src/replication/state-replication.ts's rules,
 * generic in the payload): the stamp of the rows it holds, the newest epoch it has seen and the
 * one it leads at, in `registry_replication` (migration 2 of schema-registry-store.ts). The
 * payload is null: the state is the registry's own tables, written in the same transaction as
 * the stamp, so a stamp never names rows the replica does not hold.
 */
export type RegistryStamp = StateSnapshot<null>;

type ReplicationRow = { seen_epoch: number; leading_epoch: number; stamp_epoch: number | null; stamp_version: number | null };

export function loadRegistryReplica(sql: SqlStorage): StateReplica<null> {
  const row = sql.exec<ReplicationRow>("SELECT seen_epoch, leading_epoch, stamp_epoch, stamp_version FROM registry_replication WHERE id = 1").toArray()[0];
  if (row === undefined) return new StateReplica<null>();
  const current = row.stamp_epoch === null || row.stamp_version === null ? null : { epoch: row.stamp_epoch, version: row.stamp_version, payload: null };
  return new StateReplica<null>(row.seen_epoch, row.leading_epoch, current);
}

/** One statement: the epochs and the stamp (written only when one of them changes). */
export function saveRegistryReplica(sql: SqlStorage, replica: StateReplica<null>): void {
  sql.exec(
    `INSERT INTO registry_replication (id, seen_epoch, leading_epoch, stamp_epoch, stamp_version) VALUES (1, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET seen_epoch = excluded.seen_epoch, leading_epoch = excluded.leading_epoch,
       stamp_epoch = excluded.stamp_epoch, stamp_version = excluded.stamp_version`,
    replica.seenEpoch,
    replica.leadingEpoch,
    replica.current?.epoch ?? null,
    replica.current?.version ?? null,
  );
}

export const stampOf = (snapshot: RegistryStamp | null) => (snapshot === null ? null : { epoch: snapshot.epoch, version: snapshot.version });

