/**
 * The consumer's public shapes, kafkajs's: its options, `run`'s handlers and their payloads,
 * and `subscribe`'s request. The consumer itself is consumer.ts.
 */
import type { ConsumedMessage } from "./records.ts";

export interface ConsumerOptions {
  groupId: string;
  /** 6000–1800000, default 45000: silent this long, the member is removed. */
  sessionTimeoutMs?: number;
  assignor?: "uniform" | "range";
  /** Kafka's client.id, shown with the member by `admin().groups.describe` (at most 255 characters). Default "tributary-client". */
  clientId?: string;
  /** Records per poll (1–10000; the server's default 500). */
  maxRecords?: number;
  /** Bytes per poll (the server's default 1 MiB). */
  maxBytes?: number;
  /** How long a poll waits for records (kafkajs's maxWaitTimeInMs). Default 5000; the server caps it at half the session timeout. */
  maxWaitTimeInMs?: number;
  /**
   * Where records come from (docs/client.md, "Consumer"). `websocket`: each assigned
   * partition's WebSocket stream, with only heartbeats and commits sent to the group — far
   * cheaper on Cloudflare's bill; needs a WebSocket (Node >= 22, browsers, Workers, or the
   * client's `webSocket` option) and no service binding. `poll`: group long polls, each
   * heartbeating and committing. `auto` (the default): `websocket` where the client has a
   * WebSocket, else `poll`.
   */
  transport?: "auto" | "poll" | "websocket";
  /**
   * Read past open transactions and include aborted ones' records (kafkajs's option; Kafka's
   * `isolation.level=read_uncommitted`). Default false: `read_committed` — a partition's
   * records only up to its last stable offset, aborted transactions' records never
   * (docs/transactions.md). Over polls and WebSocket streams alike.
   */
  readUncommitted?: boolean;
  /** `websocket` only, with autoCommit: commit processed positions at most this often (kafkajs's autoCommitInterval), and before every heartbeat. Default 5000. */
  autoCommitIntervalMs?: number;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: ConsumedMessage;
  heartbeat(): Promise<void>;
  /** Pauses this partition; returns a function that resumes it. */
  pause(): () => void;
}

export interface Batch {
  topic: string;
  partition: number;
  messages: ConsumedMessage[];
  firstOffset(): number | null;
  lastOffset(): number;
}

export interface EachBatchPayload {
  batch: Batch;
  /** Marks records up to and including `offset` as processed. */
  resolveOffset(offset: number): void;
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  /** True once the partition was revoked while the batch is processed: its progress cannot be committed. */
  isStale(): boolean;
  pause(): () => void;
}

export interface RunConfig {
  eachMessage?: (payload: EachMessagePayload) => Promise<void> | void;
  eachBatch?: (payload: EachBatchPayload) => Promise<void> | void;
  /** Commit positions with each poll (default true); false: only `commitOffsets` commits. */
  autoCommit?: boolean;
  /** eachBatch: a batch whose handler returns counts as processed whole (default true). */
  eachBatchAutoResolve?: boolean;
}

export interface SubscribeRequest {
  topics?: (string | RegExp)[];
  topic?: string | RegExp;
  /** Where to start where the group has committed nothing: the earliest record (else only new ones). */
  fromBeginning?: boolean;
}

/** A consumer's place in its group (Consumer.groupMetadata(), the Java client's ConsumerGroupMetadata): what a transaction's offsets are fenced by. */
export interface ConsumerGroupMetadata {
  groupId: string;
  /** Undefined before the consumer first joined. */
  memberId: string | undefined;
  memberEpoch: number;
}
