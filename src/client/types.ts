/**
 * The shapes of the HTTP API (API.md) as the client hands them out. Field names are the
 * contract's; nothing here is invented by the client — but for the secrets of created tokens,
 * which come as a `Secret` (never printed) rather than a string.
 */
import type { Operation, PatternType, ResourceType, Rule } from "../auth/acl.ts";
import type { Quotas } from "../auth/principal.ts";
import type { Secret } from "./secret.ts";

/**
 * The ACL model's types, from its one definition (src/auth/acl.ts, pure and type-only here:
 * nothing of the server comes into the client's build).
 */
export type { Operation, PatternType, Quotas, ResourceType, Rule };
/**
 * API.md's `acks`. Written out rather than imported from protocol/schemas.ts, whose zod
 * schemas would come along into the client's build; test/unit/client/types.test.ts checks
 * that both stay the same type.
 */
export type Acks = 0 | 1 | "all";

export interface PartitionInfo {
  partition: number;
  /** A region name, e.g. "weur". */
  leader: string;
  replicas: string[];
  isr: string[];
  logStartOffset: number;
  highWatermark: number;
  /** The leader's epoch (an addition): it grows at every election, as Kafka's. */
  leaderEpoch?: number;
  /** Where the partition's bytes live: the leader's SQLite and R2 (sealed segments). */
  storage?: { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number };
}

export interface Topic {
  name: string;
  topicId: string;
  replicationFactor: number;
  /** Every config with its effective value (strings, Kafka's names). */
  configs: Record<string, string>;
  partitions: PartitionInfo[];
}

export interface TopicSummary {
  name: string;
  /** The partition count. */
  partitions: number;
  replicationFactor: number;
}

export interface CreateTopicRequest {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  configs?: Record<string, string | number | boolean>;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** `offset` is the next record to read, as Kafka's committed offsets. */
export interface Position extends TopicPartition {
  offset: number;
}

/** A position to commit, with Kafka's commit metadata string (at most 4,096 characters; "" when omitted). */
export interface CommittedPosition extends Position {
  metadata?: string;
}

/** `[{topic, partitions: [...]}]`. */
export type Assignment = { topic: string; partitions: number[] }[];

export interface GroupSummary {
  group: string;
  state: string;
  /** The member count. */
  members: number;
}

export interface GroupDescription {
  group: string;
  state: string;
  assignor: string;
  members: {
    memberId: string;
    memberEpoch: number;
    assignment: Assignment;
    /** The member's client id (Kafka's client.id), null when it gave none. */
    clientId: string | null;
    /** The client's address as the server saw its join, null when unknown. */
    host: string | null;
    /** Last heartbeat (ms since the epoch). */
    lastHeartbeatAt: number;
    sessionTimeoutMs: number;
    /** A classic member's (Kafka's JoinGroup, through the gateway) static id, null when dynamic; absent for an HTTP member. */
    groupInstanceId?: string | null;
  }[];
  /** Present while the group takes Kafka's classic path (only classic members): its own state, generation, protocol and leader. */
  classic?: {
    state: "PreparingRebalance" | "CompletingRebalance" | "Stable";
    generationId: number;
    protocolType: string | null;
    protocolName: string | null;
    leader: string | null;
  };
}

export interface GroupOffset extends TopicPartition {
  /** null where nothing is committed. */
  offset: number | null;
  /** The commit's metadata string ("" when it carried none); null where nothing is committed. */
  metadata: string | null;
  /** The commit's leader epoch (KIP-320), where it carried one. */
  leaderEpoch?: number;
  highWatermark: number;
  /** highWatermark − offset; null where nothing is committed. */
  lag: number | null;
}

export type ResetTarget = "earliest" | "latest" | { timestamp: number } | { offset: number };

/** One partition of `admin.groups.deleteOffsets`: error null where its offset is gone (or there was none). */
export interface OffsetDeletion extends TopicPartition {
  /** GROUP_SUBSCRIBED_TO_TOPIC (the group's members subscribe to the topic) or UNKNOWN_TOPIC_OR_PARTITION: nothing deleted of it. */
  error: { code: string; message: string } | null;
}

/** Where a produced record landed. `offset` is −1 with `acks: 0`, as Kafka's RecordMetadata. */
export interface RecordMetadata extends TopicPartition {
  offset: number;
  timestamp: number;
}

/** Header values: UTF-8 strings (API.md); a record written by a Kafka client may hold a null one. */
export type RecordHeaders = Record<string, string | null>;

/** A record read back: key and value as the exact bytes stored (null stays null). */
export interface FetchedRecord {
  offset: number;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeaders;
}

export interface FetchResult {
  records: FetchedRecord[];
  /** Where to fetch next. */
  nextOffset: number;
  highWatermark: number;
  /** The first offset of the oldest open transaction, else the high watermark (docs/transactions.md): a read_committed read stops there. */
  lastStableOffset: number;
  logStartOffset: number;
}

/** API.md's `POST /v1/tokens` body. */
export interface CreateTokenRequest {
  /** A label for people. */
  name?: string;
  /** Kafka's ACL model, allow rules only: what the token may do (none: nothing). */
  rules: Rule[];
  /** When the token stops working, in ms since the epoch; absent: never. */
  expiresAt?: number;
  /** Rates the token's requests are held to (429 THROTTLING_QUOTA_EXCEEDED past them); absent: unlimited. */
  quotas?: Quotas;
}

/** A scoped token as `GET /v1/tokens` lists it: never its secret. */
export interface TokenInfo {
  id: string;
  name: string | null;
  rules: Rule[];
  /** ms since the epoch; null: never. */
  expiresAt: number | null;
  quotas: Quotas;
}

/**
 * A token just created. `token` is the one field holding a secret: a `Secret`, so logging or
 * JSON.stringify of the whole object shows `<redacted>`; `token.reveal()` gives the bearer
 * string, which the server never shows again.
 */
export interface CreatedToken extends TokenInfo {
  token: Secret;
}

/**
 * A browser write token (`topic(name).writeToken()`): it may only produce to `topic`, until
 * `expiresAt`. `token` is a `Secret`, as a created token's; `token.reveal()` is what a page gets.
 */
export interface WriteToken {
  token: Secret;
  topic: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/**
 * A browser read token (`topic(name).readToken()`): it may only read and describe `topic`,
 * until `expiresAt` — what a page passes as `?access_token=` to a stream. `token` is a `Secret`.
 */
export type ReadToken = WriteToken;
