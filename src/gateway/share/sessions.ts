/**
 * Share sessions (KIP-932's ShareFetch/ShareAcknowledge session epochs) as the gateway keeps
 * them, one per (group, member), for all of the gateway's connections (Kafka keys them by
 * member on the broker): the partitions in the session (a ShareFetch names only the partitions
 * it adds; the session fetches from all of them), the epoch the next request must carry, and —
 * because Kafka acknowledges by offset while Tributary acknowledges by the lease of the fetch
 * that acquired a record — the lease of every record handed out and not yet acknowledged.
 */
import { gatewayShareHeldRecordsMax, gatewayShareSessionsMax, gatewayShareSessionTimeoutMs } from "../../limits.ts";
import { kafkaErrors } from "../kafka-errors.ts";

export interface ShareSession {
  readonly groupId: string;
  readonly memberId: string;
  /** The epoch the next request must carry. */
  epoch: number;
  /** Partitions in the session, as `topic\0partition`. */
  readonly partitions: Set<string>;
  /** Records handed out and not acknowledged, by partition key then offset: their lease. */
  readonly held: Map<string, Map<number, string>>;
  heldCount: number;
  /** The acquisition lock the last fetch's records got (ms). */
  lockTimeoutMs: number;
  lastUsedMs: number;
}

const sessions = new Map<string, ShareSession>();

export const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export function splitPartitionKey(key: string): { topic: string; partition: number } {
  const at = key.lastIndexOf("\u0000");
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

const sessionKey = (groupId: string, memberId: string) => `${groupId}\u0000${memberId}`;

/** Kafka's next epoch: up by one, from Int32's largest to 1. */
export function nextEpoch(epoch: number): number {
  return epoch >= 0x7fffffff ? 1 : epoch + 1;
}

export type SessionLookup = { ok: true; session: ShareSession; previous?: ShareSession } | { ok: false; errorCode: number; message: string };

/**
 * The session a request with `epoch` works in: 0 opens a new one (answering the one it replaces,
 * whose held records the caller releases), -1 is the last request of an existing one, any other
 * must be the session's next epoch.
 */
export function sessionFor(groupId: string, memberId: string, epoch: number, nowMs = Date.now()): SessionLookup {
  const key = sessionKey(groupId, memberId);
  const existing = sessions.get(key);
  if (epoch === 0) {
    if (existing === undefined) {
      dropIdle(nowMs);
      if (sessions.size >= gatewayShareSessionsMax) return { ok: false, errorCode: kafkaErrors.SHARE_SESSION_LIMIT_REACHED, message: `at most ${gatewayShareSessionsMax} share sessions per gateway` };
    }
    const session: ShareSession = { groupId, memberId, epoch: 1, partitions: new Set(), held: new Map(), heldCount: 0, lockTimeoutMs: 30_000, lastUsedMs: nowMs };
    sessions.set(key, session);
    return existing === undefined ? { ok: true, session } : { ok: true, session, previous: existing };
  }
  if (existing === undefined) return { ok: false, errorCode: kafkaErrors.SHARE_SESSION_NOT_FOUND, message: `no share session of member ${memberId} in group ${groupId}` };
  if (epoch === -1) {
    sessions.delete(key);
    return { ok: true, session: existing };
  }
  if (epoch !== existing.epoch) return { ok: false, errorCode: kafkaErrors.INVALID_SHARE_SESSION_EPOCH, message: `share session epoch ${epoch} is not the session's next, ${existing.epoch}` };
  existing.epoch = nextEpoch(epoch);
  existing.lastUsedMs = nowMs;
  return { ok: true, session: existing };
}

/** Sessions unused for a session timeout are dropped (their records' locks expire in Tributary). */
function dropIdle(nowMs: number): void {
  for (const [key, session] of sessions) if (nowMs - session.lastUsedMs > gatewayShareSessionTimeoutMs) sessions.delete(key);
}

/** Remembers records handed out under `lease`. */
export function hold(session: ShareSession, key: string, offsets: readonly number[], lease: string): void {
  let byOffset = session.held.get(key);
  if (byOffset === undefined) session.held.set(key, (byOffset = new Map()));
  for (const offset of offsets) {
    if (!byOffset.has(offset)) session.heldCount += 1;
    byOffset.set(offset, lease);
  }
}

/** Records the session may still take before it holds too many leases to remember. */
export function holdRoom(session: ShareSession): number {
  return Math.max(0, gatewayShareHeldRecordsMax - session.heldCount);
}

export type AcknowledgeType = "accept" | "release" | "reject";

/** Kafka's acknowledge types (0 a gap: an offset with no record, nothing to do; 4 renew, which Tributary's locks do not have). */
const acknowledgeTypes: Record<number, AcknowledgeType | "gap" | undefined> = { 0: "gap", 1: "accept", 2: "release", 3: "reject" };

export interface AcknowledgementBatch {
  firstOffset: bigint;
  lastOffset: bigint;
  acknowledgeTypes: number[];
}

/** One lease's acknowledgements of a partition, as Tributary's acknowledge takes them. */
export interface LeaseAcknowledgement {
  lease: string;
  topic: string;
  partition: number;
  offsets: number[];
  type: AcknowledgeType;
}

/**
 * A partition's acknowledgement batches as Tributary acknowledgements by lease; the records are
 * no longer held. An offset the session does not hold (another member's, or acknowledged
 * already) or an acknowledge type Tributary lacks fails the partition: `error` says why, and
 * nothing of the partition is acknowledged.
 */
export function leaseAcknowledgements(session: ShareSession, topic: string, partition: number, batches: readonly AcknowledgementBatch[]): { acknowledgements: LeaseAcknowledgement[]; error?: { code: number; message: string } } {
  const byOffset = session.held.get(partitionKey(topic, partition)) ?? new Map<number, string>();
  const grouped = new Map<string, LeaseAcknowledgement>();
  const taken: number[] = [];
  for (const batch of batches) {
    const first = Number(batch.firstOffset);
    const last = Number(batch.lastOffset);
    if (last < first || batch.acknowledgeTypes.length === 0 || (batch.acknowledgeTypes.length !== 1 && batch.acknowledgeTypes.length !== last - first + 1)) {
      return { acknowledgements: [], error: { code: kafkaErrors.INVALID_REQUEST, message: `acknowledgement batch ${first}–${last} has ${batch.acknowledgeTypes.length} types` } };
    }
    for (let offset = first; offset <= last; offset++) {
      const code = batch.acknowledgeTypes.length === 1 ? batch.acknowledgeTypes[0]! : batch.acknowledgeTypes[offset - first]!;
      const type = acknowledgeTypes[code];
      if (type === "gap") continue;
      if (type === undefined) return { acknowledgements: [], error: { code: kafkaErrors.INVALID_REQUEST, message: `acknowledge type ${code} is not served here (0 gap, 1 accept, 2 release, 3 reject)` } };
      const lease = byOffset.get(offset);
      if (lease === undefined) return { acknowledgements: [], error: { code: kafkaErrors.INVALID_RECORD_STATE, message: `offset ${offset} of ${topic}-${partition} is not held by this share session` } };
      const groupKey = `${lease}\u0000${type}`;
      let acknowledgement = grouped.get(groupKey);
      if (acknowledgement === undefined) grouped.set(groupKey, (acknowledgement = { lease, topic, partition, offsets: [], type }));
      acknowledgement.offsets.push(offset);
      taken.push(offset);
    }
  }
  for (const offset of taken) if (byOffset.delete(offset)) session.heldCount -= 1;
  return { acknowledgements: [...grouped.values()] };
}

/** Every record the session still holds, as release acknowledgements by lease (the session closes). */
export function releaseAll(session: ShareSession): LeaseAcknowledgement[] {
  const grouped = new Map<string, LeaseAcknowledgement>();
  for (const [key, byOffset] of session.held) {
    const { topic, partition } = splitPartitionKey(key);
    for (const [offset, lease] of byOffset) {
      const groupKey = `${lease}\u0000${key}`;
      let acknowledgement = grouped.get(groupKey);
      if (acknowledgement === undefined) grouped.set(groupKey, (acknowledgement = { lease, topic, partition, offsets: [], type: "release" }));
      acknowledgement.offsets.push(offset);
    }
  }
  session.held.clear();
  session.heldCount = 0;
  return [...grouped.values()];
}

/** Forgets every session (tests). */
export function clearShareSessions(): void {
  sessions.clear();
}
