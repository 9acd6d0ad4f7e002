/**
 * The API's answers as the console reads them (docs/api.md): the client's own types where they
 * describe the JSON as it comes (types only: nothing of the client is bundled), and what
 * differs in the browser — describe's `storage` and `configOverrides`, fetched records with
 * base64 keys and values, the metrics' JSON twin.
 */
import type { z } from "zod";
import type { shareGroupDescriptionSchema, shareGroupListSchema } from "../../src/protocol/share-schemas.ts";
import type { GroupDescription, GroupOffset, GroupSummary, PartitionInfo as ClientPartitionInfo, RecordHeaders, Rule, Topic as ClientTopic, TokenInfo, TopicSummary } from "../../src/client/types.ts";

export type { GroupOffset, GroupSummary, Rule, TokenInfo, TopicSummary };
export type { Operation } from "../../src/client/types.ts";
export type { SubscriptionAnswer as Subscription, SubscriptionDescription } from "../../src/protocol/subscription-schemas.ts";
export type Group = GroupDescription;

export interface PartitionStorage { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number }
export interface PartitionInfo extends ClientPartitionInfo {
  storage?: PartitionStorage;
}
export interface Topic extends ClientTopic {
  configOverrides?: string[];
  partitions: PartitionInfo[];
}
/** A record as JSON fetch (`encoding=base64`) and SSE send it; `partition` on a whole topic's stream. */
export interface FetchedRecord {
  partition?: number;
  offset: number;
  timestamp: number;
  /** Base64, or with `decode=schema` the JSON its schema decodes it to when `keySchemaId` is there. */
  key: string | null;
  value: string | null;
  headers: RecordHeaders;
  /** `decode=schema` (docs/api.md, Reading decoded): the id a key or value was decoded by, or why it was not. */
  keySchemaId?: number;
  valueSchemaId?: number;
  keyDecodeError?: string;
  valueDecodeError?: string;
}
export interface FetchAnswer { records: FetchedRecord[]; nextOffset: number; highWatermark: number; logStartOffset: number }
/** GET /v1/metrics with Accept: application/json (the metrics JSON twin). */
export interface MetricsAnswer {
  generatedAt: number;
  families: { name: string; type: string; help: string; samples: { name: string; labels: Record<string, string>; value: number }[] }[];
  history: { partitions: { topic: string; partition: number; minuteStartMs: number[]; recordsIn: number[]; recordsOut: number[] }[] };
}
/** Share groups and subscriptions as the response schemas state them (the client's own types pull in its transport). */
export type ShareGroupDescription = z.output<typeof shareGroupDescriptionSchema>;
export type SharePartitionState = ShareGroupDescription["partitions"][number];
export type ShareGroupSummary = z.output<typeof shareGroupListSchema>["groups"][number];
