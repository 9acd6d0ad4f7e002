/**
 * The service binding's RPC surface (issue 6): what `TributaryService` (src/service.ts)
 * offers to other Workers that bind to it, shared with callers as types. Every method answers
 * a `Result` — an error travels as a value `{code, message, data}`, since a thrown error's
 * own properties do not survive RPC — and `unwrap` (src/errors.ts, re-exported by the
 * client as `unwrapResult`) rebuilds the TributaryError on the caller's side. Bodies and
 * answers are API.md's, field for field; `token` is the bearer token API.md asks for when the
 * Worker has TRIBUTARY_ADMIN_TOKEN set.
 */
import type { Result } from "../errors.ts";

export interface CallOptions {
  token?: string;
}

export type Json = Record<string, unknown>;

export interface FetchQuery {
  offset: number;
  maxRecords?: number;
  maxBytes?: number;
  waitMs?: number;
  encoding?: "utf8" | "base64";
}

/** A binary fetch: the stored batches as they are (docs/api.md, "Binary record batches"). */
export interface FetchedBatches {
  batches: Uint8Array;
  highWatermark: number;
  logStartOffset: number;
  nextOffset: number;
}

export interface TributaryRpc {
  // Records
  produce(topic: string, body: Json, options?: CallOptions): Promise<Result<Json>>;
  produceBatches(topic: string, partition: number, batches: Uint8Array, options?: CallOptions & { acks?: 0 | 1 | "all" }): Promise<Result<Json>>;
  fetchRecords(topic: string, partition: number, query: FetchQuery, options?: CallOptions): Promise<Result<Json>>;
  fetchBatches(topic: string, partition: number, query: Omit<FetchQuery, "encoding">, options?: CallOptions): Promise<Result<FetchedBatches>>;
  offset(topic: string, partition: number, at: "earliest" | "latest" | number, options?: CallOptions): Promise<Result<Json>>;
  // Topics
  createTopic(body: Json, options?: CallOptions): Promise<Result<Json>>;
  listTopics(options?: CallOptions): Promise<Result<Json>>;
  describeTopic(topic: string, options?: CallOptions): Promise<Result<Json>>;
  alterTopicConfigs(topic: string, configs: Json, options?: CallOptions): Promise<Result<Json>>;
  createPartitions(topic: string, count: number, options?: CallOptions): Promise<Result<Json>>;
  deleteTopic(topic: string, options?: CallOptions): Promise<Result<void>>;
  // Consumer groups
  joinGroup(group: string, body: Json, options?: CallOptions): Promise<Result<Json>>;
  heartbeat(group: string, memberId: string, body: Json, options?: CallOptions): Promise<Result<Json>>;
  poll(group: string, memberId: string, body: Json, options?: CallOptions): Promise<Result<Json>>;
  leaveGroup(group: string, memberId: string, options?: CallOptions): Promise<Result<void>>;
  commitOffsets(group: string, body: Json, options?: CallOptions): Promise<Result<void>>;
  groupOffsets(group: string, options?: CallOptions): Promise<Result<Json>>;
  resetGroupOffsets(group: string, body: Json, options?: CallOptions): Promise<Result<Json>>;
  describeGroup(group: string, options?: CallOptions): Promise<Result<Json>>;
  listGroups(options?: CallOptions): Promise<Result<Json>>;
  deleteGroup(group: string, options?: CallOptions): Promise<Result<void>>;
  // Tokens (the admin's), and browser write tokens
  createToken(body: Json, options?: CallOptions): Promise<Result<Json>>;
  listTokens(options?: CallOptions): Promise<Result<Json>>;
  revokeToken(id: string, options?: CallOptions): Promise<Result<void>>;
  createWriteToken(topic: string, body?: Json, options?: CallOptions): Promise<Result<Json>>;
}
