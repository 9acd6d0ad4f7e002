/**
 * The share consumer's public shapes (docs/client.md, "Share consumer") and the share-group
 * routes' shapes as the client sends and reads them (docs/api.md, "Share groups"). The
 * consumer itself is share-consumer.ts; its acknowledgement bookkeeping share-acks.ts.
 */
import type { ConsumedMessage } from "./records.ts";
import type { ResetTarget } from "./types.ts";

/** accept: done for the group; release: delivered again (its delivery counted); reject: never delivered again. */
export type AcknowledgeType = "accept" | "release" | "reject";

/** A record of a share fetch: the consumer's message, with how many times it has been delivered (1 the first time). */
export interface ShareMessage extends ConsumedMessage {
  deliveryCount: number;
}

export interface ShareConsumerOptions {
  /** The share group (the same namespace as consumer groups, as in Kafka). */
  group: string;
  /** The topics to consume; the server spreads each fetch over their partitions with available records. */
  topics: string[];
  /** Records per fetch (1–10000; the server's default otherwise). */
  maxRecords?: number;
  /** Bytes per fetch (the server's default otherwise). */
  maxBytes?: number;
  /** How long a fetch waits for records. Default 5000. */
  maxWaitTimeInMs?: number;
  /** Records of one fetch handled at the same time, at most. Default 1: one by one, in the fetch's order. */
  concurrency?: number;
  /**
   * "implicit" (default): a handler that returns accepts its record, one that throws releases it,
   * one that throws a `RejectRecord` rejects it. "explicit": only `acknowledge()` does; the next
   * fetch waits until every record held is acknowledged (or its lease expired).
   */
  acknowledgement?: "implicit" | "explicit";
}

export interface ShareEachMessagePayload {
  topic: string;
  partition: number;
  message: ShareMessage;
}

export interface ShareRunConfig {
  eachMessage: (payload: ShareEachMessagePayload) => Promise<void> | void;
}

/** The share consumer's events: `fetch` after each fetch (the records it acquired), `crash` (it stopped on an error). */
export interface ShareConsumerEvents {
  fetch: { records: number };
  crash: { error: unknown };
}

/** What a partition of the group holds (`admin().shareGroups.describe`). */
export interface SharePartitionState {
  topic: string;
  partition: number;
  /** KIP-932's share-partition start offset: every record below it is accepted or archived. */
  startOffset: number;
  /** KIP-932's share-partition end offset: the next record never fetched; records from startOffset to it are in flight. */
  endOffset: number;
  /** The partition's high watermark: `highWatermark − startOffset = available + acquired + done`. */
  highWatermark: number;
  /** Records waiting for a consumer: released ones in flight, and every one from endOffset to the high watermark. */
  available: number;
  /** Records locked by a fetch's lease. */
  acquired: number;
  /** Records in flight already accepted, archived or being dead-lettered: never delivered again. */
  done: number;
  /** Records archived (rejected, or delivered `delivery.count.limit` times) since the share-partition started. */
  archived: number;
}

export interface ShareGroupDescription {
  group: string;
  /** Every config with its effective value (strings, as topic configs). */
  configs: Record<string, string>;
  partitions: SharePartitionState[];
}

/** One share group as `GET /v1/share-groups` lists it. */
export interface ShareGroupSummary {
  group: string;
}

/** A share group's configs after a change: every config with its effective value. */
export interface ShareGroupConfigs {
  group: string;
  configs: Record<string, string>;
}

export interface ShareResetRequest {
  topic: string;
  to: ResetTarget;
  partitions?: number[];
  /** Answers the plan and writes nothing. */
  dryRun?: boolean;
}

/** One partition's acknowledgements on the wire: every offset of it under one lease, of one type. */
export interface ShareAcknowledgement {
  topic: string;
  partition: number;
  offsets: number[];
  type: AcknowledgeType;
}

/** A per-partition answer to acknowledgements: all of the partition's offsets applied, or none (`error`). */
export interface ShareAcknowledgementResult {
  topic: string;
  partition: number;
  error?: { code: string; message: string };
}
