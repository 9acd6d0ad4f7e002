import type { ReplicaRole } from "../replication/replica-node.ts";
import type { PartitionConfig } from "../contracts/partition-config.ts";

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
  config: PartitionConfig;
}

export const replicaIdentityMigration = `CREATE TABLE replica_identity (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  topic_id TEXT NOT NULL,
  partition INTEGER NOT NULL,
  region TEXT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  role TEXT NOT NULL,
  config TEXT NOT NULL
)`;

export function readReplicaIdentity(sql: SqlStorage): ReplicaIdentity | undefined {
  const row = sql
    .exec<{
      topic_id: string;
      partition: number;
      region: string;
      deleted: number;
      role: string;
      config: string;
    }>("SELECT * FROM replica_identity WHERE id = 1")
    .toArray()[0];
  if (!row) return undefined;
  return {
    topicId: row.topic_id,
    partition: row.partition,
    region: row.region,
    deleted: row.deleted === 1,
    role: JSON.parse(row.role) as ReplicaRole,
    config: JSON.parse(row.config) as PartitionConfig,
  };
}

export function writeReplicaIdentity(sql: SqlStorage, identity: ReplicaIdentity): void {
  sql.exec(
    `INSERT INTO replica_identity (id, topic_id, partition, region, deleted, role, config)
     VALUES (1, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET topic_id = excluded.topic_id, partition = excluded.partition, region = excluded.region,
       deleted = excluded.deleted, role = excluded.role, config = excluded.config`,
    identity.topicId,
    identity.partition,
    identity.region,
    identity.deleted ? 1 : 0,
    JSON.stringify(identity.role),
    JSON.stringify(identity.config),
  );
}
