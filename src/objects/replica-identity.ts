import type { ReplicaRole } from "../replication/replica-node.ts";

/**
 * What a replica object remembers about itself: which partition it is, whether its topic was
 * deleted (a tombstone), its role (leader with the controller's state, or follower of whom
 * at which epoch), and the topic configs replication needs in its alarm.
 */
export interface ReplicaIdentity {
  topicId: string;
  partition: number;
  region: string;
  deleted: boolean;
  role: ReplicaRole;
  minInsyncReplicas: number;
  replicaLagMaxMs: number;
}

export const replicaIdentityMigration = `CREATE TABLE replica_identity (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  topic_id TEXT NOT NULL,
  partition INTEGER NOT NULL,
  region TEXT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  role TEXT NOT NULL,
  min_insync_replicas INTEGER NOT NULL,
  replica_lag_max_ms INTEGER NOT NULL
)`;

export function readReplicaIdentity(sql: SqlStorage): ReplicaIdentity | undefined {
  const row = sql
    .exec<{
      topic_id: string;
      partition: number;
      region: string;
      deleted: number;
      role: string;
      min_insync_replicas: number;
      replica_lag_max_ms: number;
    }>("SELECT * FROM replica_identity WHERE id = 1")
    .toArray()[0];
  if (!row) return undefined;
  return {
    topicId: row.topic_id,
    partition: row.partition,
    region: row.region,
    deleted: row.deleted === 1,
    role: JSON.parse(row.role) as ReplicaRole,
    minInsyncReplicas: row.min_insync_replicas,
    replicaLagMaxMs: row.replica_lag_max_ms,
  };
}

export function writeReplicaIdentity(sql: SqlStorage, identity: ReplicaIdentity): void {
  sql.exec(
    `INSERT INTO replica_identity (id, topic_id, partition, region, deleted, role, min_insync_replicas, replica_lag_max_ms)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET topic_id = excluded.topic_id, partition = excluded.partition, region = excluded.region,
       deleted = excluded.deleted, role = excluded.role, min_insync_replicas = excluded.min_insync_replicas,
       replica_lag_max_ms = excluded.replica_lag_max_ms`,
    identity.topicId,
    identity.partition,
    identity.region,
    identity.deleted ? 1 : 0,
    JSON.stringify(identity.role),
    identity.minInsyncReplicas,
    identity.replicaLagMaxMs,
  );
}
