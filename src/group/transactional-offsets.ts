/**
 * A group's offsets committed inside transactions (issue 28; Kafka's TxnOffsetCommit): held per
 * producer id, invisible to offset reads, until the transaction coordinator's marker reaches
 * the group — a commit makes them the group's committed offsets, an abort drops them. While
 * any are pending for a partition, a `requireStable` read answers UNSTABLE_OFFSET_COMMIT.
 *
 * The late-commit rule (KIP-890, as the partitions'): the group remembers each producer id's
 * last marker epoch, and refuses a commit of a lower epoch — a commit delayed past its
 * transaction's end never lands in the next one. Pure; the object persists `state` whole.
 */
import { TributaryError } from "../errors.ts";
import { transactionalOffsetProducersMax } from "../limits.ts";

export interface TransactionalOffset {
  topic: string;
  partition: number;
  offset: number;
  metadata: string;
  /** KIP-320's committed leader epoch, where the commit carried one. */
  leaderEpoch?: number;
}

export interface PendingProducerOffsets {
  producerId: number;
  producerEpoch: number;
  offsets: TransactionalOffset[];
}

export interface TransactionalOffsetsState {
  pending: PendingProducerOffsets[];
  /** Each producer id's last marker epoch, least recently marked first. */
  markers: { producerId: number; producerEpoch: number }[];
}

export interface GroupMarker {
  producerId: number;
  producerEpoch: number;
  result: "commit" | "abort";
}

export function emptyTransactionalOffsets(): TransactionalOffsetsState {
  return { pending: [], markers: [] };
}

function offsetKey(offset: { topic: string; partition: number }): string {
  return `${offset.topic}\u0000${offset.partition}`;
}

/** Holds a transaction's offsets; a later commit of the same partition in the same transaction replaces the earlier. */
export function stageOffsets(
  state: TransactionalOffsetsState,
  request: { producerId: number; producerEpoch: number; offsets: readonly TransactionalOffset[] },
): TransactionalOffsetsState {
  const marked = state.markers.find((marker) => marker.producerId === request.producerId);
  const current = state.pending.find((entry) => entry.producerId === request.producerId);
  const floor = Math.max(marked?.producerEpoch ?? -1, current?.producerEpoch ?? -1);
  if (request.producerEpoch < floor) {
    throw new TributaryError("INVALID_PRODUCER_EPOCH", `producer ${request.producerId} epoch ${request.producerEpoch} is older than the group's ${floor}: its transaction ended`);
  }
  const byKey = new Map<string, TransactionalOffset>();
  // A newer epoch's commit starts afresh: the older epoch's pending offsets belong to an ended transaction whose marker is on its way.
  if (current && current.producerEpoch === request.producerEpoch) for (const offset of current.offsets) byKey.set(offsetKey(offset), offset);
  for (const offset of request.offsets) byKey.set(offsetKey(offset), { ...offset });
  const entry = { producerId: request.producerId, producerEpoch: request.producerEpoch, offsets: [...byKey.values()] };
  return { ...state, pending: [...state.pending.filter((other) => other.producerId !== request.producerId), entry] };
}

/**
 * The coordinator's marker: answers the offsets to make committed (none at abort, none when a
 * retry finds nothing pending) and the state without them. A pending commit of a newer epoch
 * than the marker's is another transaction's and stays.
 */
export function applyGroupMarker(state: TransactionalOffsetsState, marker: GroupMarker): { state: TransactionalOffsetsState; commit: TransactionalOffset[] } {
  const entry = state.pending.find((pending) => pending.producerId === marker.producerId);
  const ended = entry !== undefined && entry.producerEpoch < marker.producerEpoch;
  const known = state.markers.find((other) => other.producerId === marker.producerId);
  const markers = [
    ...state.markers.filter((other) => other.producerId !== marker.producerId),
    { producerId: marker.producerId, producerEpoch: Math.max(marker.producerEpoch, known?.producerEpoch ?? -1) },
  ].slice(-transactionalOffsetProducersMax);
  return {
    state: { pending: ended ? state.pending.filter((pending) => pending !== entry) : state.pending, markers },
    commit: ended && marker.result === "commit" ? entry.offsets : [],
  };
}

/** Whether a transaction holds uncommitted offsets of the partition (Kafka's require_stable answers UNSTABLE_OFFSET_COMMIT). */
export function hasPendingOffsets(state: TransactionalOffsetsState, topic: string, partition: number): boolean {
  return state.pending.some((entry) => entry.offsets.some((offset) => offset.topic === topic && offset.partition === partition));
}

/**
 * OffsetDelete of these partitions (offset-deletion.ts): a transaction's pending offsets of them
 * go too, as Kafka's tombstone clears them, so its commit marker cannot bring them back. The
 * producer's entry stays (even with no offsets left): its epoch still fences a late commit.
 */
export function dropPendingOffsets(state: TransactionalOffsetsState, partitions: readonly { topic: string; partition: number }[]): TransactionalOffsetsState {
  const dropped = new Set(partitions.map(offsetKey));
  return { ...state, pending: state.pending.map((entry) => ({ ...entry, offsets: entry.offsets.filter((offset) => !dropped.has(offsetKey(offset))) })) };
}
