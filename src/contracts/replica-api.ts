/**
 * The PartitionReplica's RPC shapes (src/objects/partition-replica.ts), for its callers: the data
 * plane, the router and the controller. Every method takes the replica's address and returns a
 * Result.
 */
import type { AppendResult } from "../log/partition-log.ts";
import type { SubscriberMode } from "../log/subscriber-window.ts";
import type { PartitionNumbers } from "../metrics/cluster-families.ts";
import type { Acks, Isolation } from "../protocol/schemas.ts";
import type { StreamAppendCondition } from "../protocol/stream-records.ts";
import type { PartitionState } from "../replication/partition-state.ts";
import type { ReplicaRole } from "../replication/replica-node.ts";
import type { PartitionConfig } from "./partition-config.ts";

/** Every call names the replica it means, so an object can check it is that replica. */
export interface PartitionAddress {
  topicId: string;
  partition: number;
  region: string;
}

/** A call from a router: its view of the partition's state, which a replica adopts when newer, and the topic's configs. */
export interface RoutedCall extends PartitionAddress {
  placement: PartitionState;
  config: PartitionConfig;
}

export interface AppendRequest extends RoutedCall {
  /** Record batches in Kafka's v2 format, validated by the caller; written atomically together. */
  batches: Uint8Array[];
  acks: Acks;
  /** A duplicate's answer carries every record's stored timestamp (JSON produce), else only the first's. */
  recordTimestamps?: boolean;
  /** A Durable Streams append (src/durable-streams/): checked by the leader before it writes (stream-appends.ts). */
  stream?: StreamAppendCondition;
  /** A transaction marker's append (writeTransactionMarker): written even to a closed Durable Stream, whose transaction must end. */
  marker?: true;
}

/** A transaction coordinator's COMMIT or ABORT marker for one partition (docs/transactions.md; TXN-CONTRACT). */
export interface TransactionMarkerRequest extends RoutedCall {
  producerId: number;
  /** The (bumped) epoch the marker is written with. */
  producerEpoch: number;
  result: "commit" | "abort";
  coordinatorEpoch: number;
}

/** An append's answer: a duplicate (an idempotent producer's retry) also carries the stored records' timestamps. */
export interface AppendAnswer extends AppendResult {
  /** Duplicates only, when the batches are still held here: the first record's, or every record's (recordTimestamps). */
  timestamps?: number[];
  /** Durable Streams appends only: the stream is closed after this append (or was already). */
  streamClosed?: boolean;
  /** Durable Streams appends of an idempotent producer: the last sequence the partition holds for it. */
  producerLastSequence?: number;
}

export interface FetchRequest extends RoutedCall {
  offset: number;
  maxRecords: number;
  maxBytes: number;
  /** Long-poll: wait up to this long for a record when none is readable at `offset`. */
  waitMs: number;
  /** read_committed (absent: the default) reads below the last stable offset; read_uncommitted below the high watermark. */
  isolation?: Isolation;
}

/** Kafka's DeleteRecords (docs/api.md, Delete records): the log is to start at `beforeOffset`; −1 is the high watermark. */
export interface DeleteRecordsRequest extends RoutedCall {
  beforeOffset: number;
}

/** The partition's log start once the records are deleted: Kafka's low watermark. */
export interface DeleteRecordsAnswer {
  lowWatermark: number;
}

/**
 * `earliest` (the log start), `latest` (the high watermark), `earliest-local` (the first offset
 * held by the partition itself, past what tiered storage holds: Kafka's KIP-405),
 * `latest-tiered` (the last offset sealed to R2: KIP-1005), `earliest-pending-upload` (the
 * first offset not sealed to R2 yet: KIP-1023), `max-timestamp` (the first record with the
 * largest timestamp: KIP-734), or the first record at or after a time.
 * `{ epochEnd }`: where that leader epoch ended (Kafka's OffsetForLeaderEpoch; src/log/epoch-end.ts).
 */
export type OffsetQuery = "earliest" | "latest" | "earliest-local" | "latest-tiered" | "earliest-pending-upload" | "max-timestamp" | { timestampMs: number } | { epochEnd: number };

export interface ReplicaState {
  logStartOffset: number;
  highWatermark: number;
  /** The first offset of the oldest open transaction, else the high watermark. */
  lastStableOffset: number;
  logEndOffset: number;
  leaderEpoch: number;
  role: ReplicaRole["kind"];
  storage: { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number };
  /** Only with TRIBUTARY_FAULTS=1 (tests and the benchmark): this object's counters since it started. */
  debug?: ReplicaDebugStats;
}

/** A replica's numbers for GET /v1/metrics (docs/metrics.md): its log, its tiers and its traffic counters. */
export interface PartitionMetrics extends PartitionNumbers {
  role: ReplicaRole["kind"];
}

/**
 * A partition object's counters since it started, reported in its state (and so in a topic's
 * description) only when TRIBUTARY_FAULTS is "1" — for tests and the benchmark (bench/), which
 * prints object requests and SQLite rows written per 1,000 records and watches memory in its
 * soak mode. Never a production API: the counters are per instance and start over when the
 * object does.
 */
export interface ReplicaDebugStats {
  /** RPC calls this object answered (each one an object request, as Cloudflare bills them). */
  requests: number;
  /** Alarm invocations (billed as requests too). */
  alarms: number;
  /** Rows written to its SQLite (cursor.rowsWritten summed): what Cloudflare bills for storage writes. */
  sqliteRowsWritten: number;
  /** Group commit: transactions of appends, the appends they held, and what waits now. */
  appendGroups: number;
  appendsGrouped: number;
  appendsWaiting: number;
  appendBytesWaiting: number;
  /** The bounded structures that hold memory: the tail cache's bytes and the long-poll waiters. */
  tailCacheBytes: number;
  waiters: number;
  /** WebSocket subscribers open now (held across hibernation), and since this instance started: frames and bytes pushed, log reads made for them (one per position, shared by every subscriber there). */
  subscribers: number;
  framesPushed: number;
  bytesPushed: number;
  subscriberReads: number;
  /** Push runs over the subscribers (each visits every socket): per commit, and per credit that may unblock one. */
  subscriberPushes: number;
  /** Messages received from subscribers (credit): incoming WebSocket messages, billed 20 to a request. */
  subscriberMessages: number;
}

// ---- WebSocket subscribers: a router's upgrade to the leader object (src/objects/partition-subscribers.ts)

/** The subprotocol of binary frames (docs/api.md). */
export const recordBatchSubprotocol = "tributary.record-batch";

/** The header carrying a router's subscribe request to the leader object's fetch(). */
export const subscribeHeader = "Tributary-Subscribe";

/** What the router sends with an upgrade: its routed call, where to start, the frames wanted, and who asks. */
export interface SubscribeRequest extends RoutedCall {
  offset: "earliest" | "latest" | number;
  mode: SubscriberMode;
  /** read_committed (absent: the default) or read_uncommitted, as a fetch's. */
  isolation?: Isolation;
  /**
   * The token's key (a hash of the request's credential, never the token), counted against
   * streamsPerTokenMax; absent for the admin token and open mode.
   */
  tokenKey?: string;
}
