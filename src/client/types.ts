/**
 * The shapes of the HTTP API (API.md) as the client hands them out. Field names are the
 * contract's; nothing here is invented by the client.
 */
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
  members: { memberId: string; memberEpoch: number; assignment: Assignment }[];
}

export interface GroupOffset extends TopicPartition {
  /** null where nothing is committed. */
  offset: number | null;
  highWatermark: number;
  /** highWatermark − offset; null where nothing is committed. */
  lag: number | null;
}

export type ResetTarget = "earliest" | "latest" | { timestamp: number } | { offset: number };

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
  logStartOffset: number;
}
