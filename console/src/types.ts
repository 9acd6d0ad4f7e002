/** The API's answers as the console reads them (docs/api.md). */
export interface TopicSummary { name: string; partitions: number; replicationFactor: number }
export interface PartitionStorage { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number }
export interface PartitionInfo {
  partition: number;
  leader: string;
  replicas: string[];
  isr: string[];
  logStartOffset: number;
  highWatermark: number;
  storage?: PartitionStorage;
}
export interface Topic {
  name: string;
  topicId: string;
  replicationFactor: number;
  configs: Record<string, string>;
  configOverrides?: string[];
  partitions: PartitionInfo[];
}
export interface FetchedRecord {
  partition?: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}
export interface FetchAnswer { records: FetchedRecord[]; nextOffset: number; highWatermark: number; logStartOffset: number }
export interface GroupSummary { group: string; state: string; members: number }
export interface Assignment { topic: string; partitions: number[] }
export interface GroupMember {
  memberId: string;
  memberEpoch: number;
  assignment: Assignment[];
  clientId: string | null;
  host: string | null;
  lastHeartbeatAt: number;
  sessionTimeoutMs: number;
}
export interface Group { group: string; state: string; assignor: string; members: GroupMember[] }
export interface GroupOffset { topic: string; partition: number; offset: number | null; highWatermark: number; lag: number | null }
export type Operation = "read" | "write" | "describe" | "create" | "alter" | "delete";
export interface Rule { resource: "topic" | "group" | "cluster"; name: string; patternType: "literal" | "prefixed"; operations: Operation[] }
export interface TokenInfo {
  id: string;
  name: string | null;
  rules: Rule[];
  expiresAt: number | null;
  quotas?: Record<string, number> | null;
}
/** GET /v1/metrics with Accept: application/json (the metrics JSON twin). */
export interface MetricsAnswer {
  generatedAt: number | string;
  families: { name: string; type: string; help: string; samples: { name: string; labels: Record<string, string>; value: number }[] }[];
  history: { partitions: { topic: string; partition: number; minuteStartMs: number[]; recordsIn: number[]; recordsOut: number[] }[] };
}
