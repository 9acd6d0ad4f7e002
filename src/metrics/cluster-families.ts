import { family, type MetricFamily } from "./exposition.ts";
import { metricNames } from "./names.ts";
import type { TrafficHistory } from "./partition-traffic.ts";

/** A partition replica's numbers, as its object reports them (PartitionReplica.metrics()). */
export interface PartitionNumbers {
  logStartOffset: number;
  highWatermark: number;
  logEndOffset: number;
  storage: { sqliteBatches: number; sqliteBytes: number; r2Segments: number; r2Bytes: number };
  /** Records the replica's log grew by since its counters began (exact across restarts: derived from offsets). */
  recordsAppended: number;
  /** As last written (lazily, and by every scrape): a restart loses at most metricsPersistIntervalMs of these. */
  bytesAppended: number;
  fetches: number;
  recordsFetched: number;
  /** WebSocket subscribers the object holds now. */
  subscribers: number;
  history: TrafficHistory;
}

/** One partition as gathered: the controller's placement and its leader's numbers. */
export interface GatheredPartition extends PartitionNumbers {
  topic: string;
  partition: number;
  replicas: readonly string[];
  isr: readonly string[];
}

/** One group's committed offsets (partitions without a commit are left out). */
export interface GatheredGroup {
  group: string;
  offsets: readonly { topic: string; partition: number; offset: number }[];
}

export interface Gathered {
  partitions: readonly GatheredPartition[];
  groups: readonly GatheredGroup[];
  /** Left out past the gathering's bounds (src/limits.ts, metrics). */
  omitted: { topics: number; partitions: number; groups: number };
  /** Asked and not answered this time (a leader or coordinator unreachable, a topic deleted meanwhile). */
  unavailable: { partitions: number; groups: number };
}

/** The JSON twin's history (docs/api.md): records in and out per minute, per partition. */
export interface PartitionHistory extends TrafficHistory {
  topic: string;
  partition: number;
}

/** The families GET /v1/metrics shows for partitions, groups and the gathering itself. Pure. */
export function clusterFamilies(gathered: Gathered): MetricFamily[] {
  const partitions = gathered.partitions;
  const perPartition = (value: (partition: GatheredPartition) => number) =>
    partitions.map((entry) => ({ labels: { topic: entry.topic, partition: String(entry.partition) }, value: value(entry) }));
  const perTier = (sqlite: (partition: GatheredPartition) => number, r2: (partition: GatheredPartition) => number) =>
    partitions.flatMap((entry) => [
      { labels: { topic: entry.topic, partition: String(entry.partition), tier: "sqlite" }, value: sqlite(entry) },
      { labels: { topic: entry.topic, partition: String(entry.partition), tier: "r2" }, value: r2(entry) },
    ]);
  const highWatermarks = new Map(partitions.map((entry) => [`${entry.partition}/${entry.topic}`, entry.highWatermark]));
  const lagSamples = gathered.groups.flatMap((group) =>
    group.offsets.flatMap(({ topic, partition, offset }) => {
      const highWatermark = highWatermarks.get(`${partition}/${topic}`);
      const labels = { group: group.group, topic, partition: String(partition) };
      return highWatermark === undefined ? [] : [{ labels, value: highWatermark - offset }];
    }),
  );
  const leader = "as its leader reports it";
  const leaderCounter = "Counted by the partition's current leader replica (a new leader continues from its own count)";
  return [
    family(metricNames.partitionLogStartOffset, "gauge", `The partition's log start offset, ${leader}.`, perPartition((entry) => entry.logStartOffset)),
    family(metricNames.partitionHighWatermark, "gauge", `The partition's high watermark (records below it are readable), ${leader}.`, perPartition((entry) => entry.highWatermark)),
    family(metricNames.partitionLogEndOffset, "gauge", `The offset the leader's next record gets, ${leader}.`, perPartition((entry) => entry.logEndOffset)),
    family(metricNames.partitionBytes, "gauge", "Bytes of the partition's log per tier: sqlite (unsealed batches) and r2 (sealed segments).", perTier((entry) => entry.storage.sqliteBytes, (entry) => entry.storage.r2Bytes)),
    family(metricNames.partitionSegments, "gauge", "Segments per tier: sqlite holds one active segment while it has batches; r2 the sealed ones.", perTier((entry) => (entry.storage.sqliteBatches > 0 ? 1 : 0), (entry) => entry.storage.r2Segments)),
    family(metricNames.partitionBatches, "gauge", "Record batches (rows) in the partition's SQLite tier, not yet sealed to R2.", perPartition((entry) => entry.storage.sqliteBatches)),
    family(metricNames.partitionReplicas, "gauge", "Replicas the partition has (its replication factor).", perPartition((entry) => entry.replicas.length)),
    family(metricNames.partitionIsrSize, "gauge", "In-sync replicas, as the controller holds them.", perPartition((entry) => entry.isr.length)),
    family(metricNames.partitionUnderReplicated, "gauge", "1 when the partition has fewer in-sync replicas than replicas, else 0.", perPartition((entry) => (entry.isr.length < entry.replicas.length ? 1 : 0))),
    family(metricNames.partitionRecordsAppended, "counter", `Records appended to the partition's log. ${leaderCounter}; derived from offsets, exact across restarts.`, perPartition((entry) => entry.recordsAppended)),
    family(metricNames.partitionBytesAppended, "counter", `Bytes of record batches appended. ${leaderCounter}; stored at most a minute late, so a restart may lose up to a minute's count.`, perPartition((entry) => entry.bytesAppended)),
    family(metricNames.partitionFetches, "counter", `Fetches the leader served (reads a follower serves near its reader are not counted). ${leaderCounter}; stored at most a minute late.`, perPartition((entry) => entry.fetches)),
    family(metricNames.partitionRecordsFetched, "counter", `Records the leader's fetches returned. ${leaderCounter}; stored at most a minute late.`, perPartition((entry) => entry.recordsFetched)),
    family(metricNames.partitionSubscribers, "gauge", "WebSocket subscribers the partition's leader holds now.", perPartition((entry) => entry.subscribers)),
    family(
      metricNames.groupCommittedOffset,
      "gauge",
      "A consumer group's committed offset (the next record to read) per partition; partitions without a commit are left out.",
      gathered.groups.flatMap((group) => group.offsets.map(({ topic, partition, offset }) => ({ labels: { group: group.group, topic, partition: String(partition) }, value: offset }))),
    ),
    family(metricNames.groupLag, "gauge", "A consumer group's lag per partition: the high watermark minus the committed offset.", lagSamples),
    family(
      metricNames.scrapeOmitted,
      "gauge",
      "Topics, partitions and groups this gathering left out past its bounds (docs/metrics.md).",
      (["topics", "partitions", "groups"] as const).map((kind) => ({ labels: { kind }, value: gathered.omitted[kind] })),
    ),
    family(
      metricNames.scrapeUnavailable,
      "gauge",
      "Partitions and groups this gathering asked that did not answer (left out this time).",
      (["partitions", "groups"] as const).map((kind) => ({ labels: { kind }, value: gathered.unavailable[kind] })),
    ),
  ];
}

export function partitionHistories(gathered: Gathered): PartitionHistory[] {
  return gathered.partitions.map(({ topic, partition, history }) => ({ topic, partition, ...history }));
}
