import { TributaryError } from "../errors.ts";
import type { Settled } from "../log/group-commit.ts";
import { BatchFormatError } from "../protocol/record-batch.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import type { AppendAnswer, AppendRequest } from "../contracts/replica-api.ts";
import { appendToStream, type StreamStateStore } from "./stream-appends.ts";

/** Bytes of batches an append carries: what the group-commit queue bounds. */
export function appendBytes(request: AppendRequest): number {
  let bytes = 0;
  for (const batch of request.batches) bytes += batch.byteLength;
  return bytes;
}

/**
 * One append as the leader: the records' offsets; for an idempotent producer's retry,
 * nothing written and the original offsets with the stored records' timestamps (the
 * first's, or every one's with `recordTimestamps`) while they are still held here.
 */
function appendOne(node: ReplicaNode, request: AppendRequest, nowMs: number, streams: StreamStateStore): AppendAnswer {
  if (request.marker) return appendRecords(node, request, nowMs);
  if (request.stream) return appendToStream(node, request.batches, request.stream, streams, () => appendRecords(node, request, nowMs));
  // Any other append (/v1 produce, JSON or binary, the service binding, the Kafka gateway) to a
  // closed stream is refused too: the flag is held in memory once read, so this costs no SQLite read.
  if (streams.get().closed) throw new TributaryError("STREAM_CLOSED", "this topic is a closed Durable Stream: nothing more can be appended", { nextOffset: node.log.logEndOffset });
  return appendRecords(node, request, nowMs);
}

function appendRecords(node: ReplicaNode, request: AppendRequest, nowMs: number): AppendAnswer {
  let result: AppendAnswer;
  try {
    result = node.appendAsLeader(request.batches, nowMs);
  } catch (error) {
    if (error instanceof BatchFormatError) throw new TributaryError("INVALID_RECORD", error.message);
    throw error;
  }
  if (!result.duplicate) return result;
  const upTo = request.recordTimestamps ? result.lastOffset : result.baseOffset;
  const timestamps = node.log.recordTimestamps(result.baseOffset, upTo);
  return timestamps ? { ...result, timestamps } : result;
}

/**
 * A group of appends, in order, in one synchronous turn (group commit): each one's answer or
 * its refusal, which writes nothing of it and does not affect the others. `node` is the
 * replica as it is now — a call may have deposed it or deleted its topic since the appends
 * were admitted, and then each is refused as it would have been at admission.
 */
export function writeAppends(node: ReplicaNode | undefined, requests: readonly AppendRequest[], nowMs: number, streams: StreamStateStore): Settled<AppendAnswer>[] {
  return requests.map((request) => {
    try {
      if (!node) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this topic has been deleted");
      return { ok: true, value: appendOne(node, request, nowMs, streams) };
    } catch (error) {
      return { ok: false, error };
    }
  });
}
