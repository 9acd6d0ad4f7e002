import type { ErrorValue } from "../errors.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { AcknowledgeType, AcquiredRecord, DeadLetter, SharePartitionSummary } from "../share/share-partition.ts";

/** RPC shapes of the share objects (src/objects/share-partition-state.ts, share-group.ts), shared with the router. */

/** Which share-partition: the group, and the topic incarnation (topicId) and partition it tracks. */
export interface SharePartitionRef {
  group: string;
  topic: string;
  topicId: string;
  partition: number;
  /** The partition leader's region when the share-partition registered with its group. */
  region: string;
  /** The partition's replica regions (each holds a state replica); absent in groups registered before replication. */
  replicas?: string[];
}

/**
 * A call to a share-partition's state replica as its leader: the partition's placement as the
 * router's metadata has it. `region` is the leader's (the replica called), `leaderEpoch` fences
 * callers of an old leader, `isr` says whose acknowledgement commits a write.
 */
export interface SharePartitionKey extends SharePartitionRef {
  replicas: string[];
  leaderEpoch: number;
  isr: string[];
}

/** What a state replica holds and pushes (src/replication/state-replication.ts): its key, the group's configs, the window's row. */
export interface ShareStatePayload {
  key: SharePartitionRef;
  configs: VersionedShareConfigs;
  /** The window as PersistedSharePartition JSON; null until the share-partition starts. */
  state: string | null;
}

/** Acknowledgements of one partition from one lease. */
export interface LeaseAcknowledgement {
  lease: string;
  offsets: number[];
  type: AcknowledgeType;
}

export interface ShareAcquireRequest {
  lease: string;
  maxRecords: number;
  /** The partition's high watermark as the router last saw it (the object keeps the largest it was told). */
  highWatermark?: number;
  logStartOffset?: number;
  /** Where a new share-partition starts (the router's answer to `needsStart`). */
  start?: { offset: number; highWatermark: number };
  /** Acknowledgements riding along (as KIP-932's ShareFetch): applied first, all or none. */
  acknowledgements?: LeaseAcknowledgement[];
}

/** Dead letters claimed for the caller to write, and where. */
export interface DeadLetterWork {
  deadLetterTopic: string | null;
  deadLetters: DeadLetter[];
}

export type ShareAcquireAnswer =
  | { needsStart: true; autoOffsetReset: "latest" | "earliest"; isolation: Isolation; acknowledgementError?: ErrorValue }
  | (DeadLetterWork & {
      needsStart: false;
      /** The group's share.isolation.level: how the router reads the acquired records and the partition's end. */
      isolation: Isolation;
      records: AcquiredRecord[];
      lockExpiresAtMs: number;
      endOffset: number;
      highWatermark: number;
      /** When the earliest lock held now expires (a waiting fetch wakes then). */
      nextLockExpiryMs: number | null;
      /** Why the acknowledgements that rode along were refused (nothing of them applied). */
      acknowledgementError?: ErrorValue;
    });

export interface ShareSettleRequest {
  lease: string;
  /** Acquired, not delivered (the answer was full): available again, the delivery not counted. */
  unacquired: number[];
  /** Acquired, gone from the log: done. */
  missing: number[];
}

export type SharePartitionDescription = SharePartitionSummary & {
  topic: string;
  topicId: string;
  partition: number;
  /** Only with TRIBUTARY_FAULTS=1 and TRIBUTARY_DEBUG_STATS=1 (bench): rows written and records acknowledged since the object started. */
  debug?: { rowsWritten: number; recordsAcknowledged: number; requests: number };
};

/** A share group's configs as its partitions hold them: `version` orders pushes and registrations. */
export interface VersionedShareConfigs {
  version: number;
  configs: Record<string, string>;
}

/** A state replica's counters and replication state (SharePartitionState.stats, TRIBUTARY_FAULTS=1 only). */
export interface ShareStateStats {
  requests: number;
  rowsWritten: number;
  recordsAcknowledged: number;
  seenEpoch: number;
  leadingEpoch: number;
  stamp: { epoch: number; version: number } | null;
  configs: Record<string, string> | null;
  /** The window's row (PersistedSharePartition JSON), or null. */
  state: string | null;
}
