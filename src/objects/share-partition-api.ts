import type { ErrorValue } from "../errors.ts";
import type { AcknowledgeType, AcquiredRecord, DeadLetter, SharePartitionSummary } from "../share/share-partition.ts";

/** RPC shapes of the share objects (src/objects/share-partition-state.ts, share-group.ts), shared with the router. */

/** Which share-partition: the group, and the topic incarnation (topicId) and partition it tracks. */
export interface SharePartitionKey {
  group: string;
  topic: string;
  topicId: string;
  partition: number;
  /** The partition leader's region when the router called: the object's locationHint, kept by the group. */
  region: string;
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
  | { needsStart: true; autoOffsetReset: "latest" | "earliest"; acknowledgementError?: ErrorValue }
  | (DeadLetterWork & {
      needsStart: false;
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
