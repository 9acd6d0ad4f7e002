/**
 * Every metric family's name (docs/metrics.md), in one place: Prometheus conventions — the
 * `tributary_` prefix, base units in the name (`_bytes`, `_seconds`), counters ending in
 * `_total` — and the labels `topic`, `partition`, `group`.
 */
export const metricNames = {
  partitionLogStartOffset: "tributary_partition_log_start_offset",
  partitionHighWatermark: "tributary_partition_high_watermark",
  partitionLogEndOffset: "tributary_partition_log_end_offset",
  partitionBytes: "tributary_partition_bytes",
  partitionSegments: "tributary_partition_segments",
  partitionBatches: "tributary_partition_batches",
  partitionReplicas: "tributary_partition_replicas",
  partitionIsrSize: "tributary_partition_isr_size",
  partitionUnderReplicated: "tributary_partition_under_replicated",
  partitionRecordsAppended: "tributary_partition_records_appended_total",
  partitionBytesAppended: "tributary_partition_bytes_appended_total",
  partitionFetches: "tributary_partition_fetches_total",
  partitionRecordsFetched: "tributary_partition_records_fetched_total",
  partitionSubscribers: "tributary_partition_subscribers",
  groupCommittedOffset: "tributary_group_committed_offset",
  groupLag: "tributary_group_lag",
  routerRequests: "tributary_router_requests_total",
  routerRequestDuration: "tributary_router_request_duration_seconds",
  routerThrottledRequests: "tributary_router_throttled_requests_total",
  routerErrors: "tributary_router_errors_total",
  scrapeOmitted: "tributary_metrics_omitted",
  scrapeUnavailable: "tributary_metrics_unavailable",
} as const;
