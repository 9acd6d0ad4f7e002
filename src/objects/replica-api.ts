/**
 * The PartitionReplica's RPC shapes, for the router (src/router/*) and the controller. Every
 * method takes the replica's address and returns a Result.
 */
import type { AppendResult } from "../log/partition-log.ts";
import type { PartitionNumbers } from "../metrics/cluster-families.ts";
import type { Acks } from "../protocol/schemas.ts";
import type { StreamAppendCondition } from "../protocol/stream-records.ts";
import type { PartitionState } from "../replication/partition-state.ts";
import type { ReplicaRole } from "../replication/replica-node.ts";
import type { PartitionConfig } from "./partition-config.ts";
import type { ReplicaDebugStats } from "./replica-debug-stats.ts";

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
}

export type OffsetQuery = "earliest" | "latest" | { timestampMs: number };

export interface ReplicaState {
  logStartOffset: number;
  highWatermark: number;
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
