import { asTributaryError, toResult, TributaryError, type Result } from "../errors.ts";
import { markerWritesInParallelMax } from "../limits.ts";
import { callLeader } from "./leader-calls.ts";
import { topicMetadata } from "./metadata-cache.ts";

/** A transaction's end as the coordinator decided it (TXN-CONTRACT; docs/transactions.md). */
export interface MarkerToWrite {
  producerId: number;
  /** The bumped epoch: every transaction end bumps it (the epoch rule). */
  producerEpoch: number;
  result: "commit" | "abort";
  coordinatorEpoch: number;
}

export interface MarkerPartition {
  topic: string;
  partition: number;
}

/**
 * Writes a transaction's marker to each of its partitions' leaders, following leader moves and
 * stale metadata as the data plane's other leader calls do (a marker write is idempotent, so an
 * unanswered call is repeated too). Ok only when every partition holds the marker; a deleted
 * topic or partition counts as done (nothing left to read). Otherwise the error names the
 * partitions that failed (`data.failed`), for the coordinator's alarm to retry those.
 */
export async function writeTransactionMarkers(env: Env, marker: MarkerToWrite, partitions: readonly MarkerPartition[]): Promise<Result<void>> {
  return toResult(async () => {
    const failed: { topic: string; partition: number; code: string; message: string }[] = [];
    for (let start = 0; start < partitions.length; start += markerWritesInParallelMax) {
      const slice = partitions.slice(start, start + markerWritesInParallelMax);
      const outcomes = await Promise.allSettled(slice.map((target) => writeMarker(env, marker, target)));
      outcomes.forEach((outcome, index) => {
        if (outcome.status === "fulfilled") return;
        const error = asTributaryError(outcome.reason);
        if (error.code !== "UNKNOWN_TOPIC_OR_PARTITION") failed.push({ ...slice[index]!, code: error.code, message: error.message });
      });
    }
    if (failed.length === 0) return;
    const named = failed.map((entry) => `${entry.topic}/${entry.partition} (${entry.code})`).join(", ");
    const fenced = failed.find((entry) => entry.code === "INVALID_PRODUCER_EPOCH");
    // A fenced marker is final (a newer epoch ended the transaction); anything else is worth retrying.
    throw new TributaryError(fenced ? "INVALID_PRODUCER_EPOCH" : "LEADER_NOT_AVAILABLE", `the marker is not yet written to ${named}`, { failed });
  });
}

async function writeMarker(env: Env, marker: MarkerToWrite, target: MarkerPartition): Promise<{ offset: number | null }> {
  const topic = await topicMetadata(env, target.topic);
  return callLeader(env, topic, target.partition, (stub, call) => stub.writeTransactionMarker({ ...call, ...marker }), { retryUnreachable: true });
}
