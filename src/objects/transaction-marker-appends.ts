import type { Result } from "../errors.ts";
import type { AppendAnswer, AppendRequest, TransactionMarkerRequest } from "../contracts/replica-api.ts";
import { encodeControlBatch } from "../protocol/control-batch.ts";

/**
 * A transaction marker as a partition leader writes it (docs/transactions.md): one control
 * batch appended like an acks=all produce — through group commit, answered once the in-sync
 * replicas hold it. The log (src/log/transaction-state.ts) applies the epoch rule and answers a
 * retry of the producer's last marker as a duplicate: `offset: null`, nothing written.
 */
export function markerAppend(request: TransactionMarkerRequest, nowMs: number): AppendRequest {
  const { producerId, producerEpoch, result, coordinatorEpoch, ...call } = request;
  const batch = encodeControlBatch({ producerId, producerEpoch, result, coordinatorEpoch }, nowMs);
  return { ...call, batches: [batch], acks: "all", marker: true };
}

/** The append's answer as the coordinator's: the marker's offset, or null for a retry already written. */
export function markerAnswer(answer: Result<AppendAnswer>): Result<{ offset: number | null }> {
  if (!answer.ok) return answer;
  return { ok: true, value: { offset: answer.value.duplicate ? null : answer.value.baseOffset } };
}
