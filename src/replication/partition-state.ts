import { TributaryError } from "../errors.ts";

/**
 * A partition's replication state as the controller holds it (Kafka's PartitionRegistration):
 * the leader, the replicas, the in-sync replicas, the leader epoch (bumped on every leader
 * change) and the partition epoch (bumped on every change, the compare-and-set token of
 * AlterPartition). Acks and the high watermark use only this ISR, so a deposed leader can
 * never acknowledge alone.
 */
export interface PartitionState {
  leader: string;
  replicas: string[];
  isr: string[];
  leaderEpoch: number;
  partitionEpoch: number;
}

export interface AlterPartitionRequest {
  leader: string;
  leaderEpoch: number;
  partitionEpoch: number;
  isr: string[];
}

/**
 * Kafka's AlterPartition: a leader proposes a new ISR; accepted only from the current leader
 * at the current epochs, only with replicas of the partition, always keeping the leader.
 */
export function alterPartition(current: PartitionState, request: AlterPartitionRequest): PartitionState {
  if (request.leader !== current.leader || request.leaderEpoch !== current.leaderEpoch) {
    throw new TributaryError("NOT_LEADER_OR_FOLLOWER", `${request.leader} is not the leader of epoch ${current.leaderEpoch}`, {
      leaderEpoch: current.leaderEpoch,
      state: current,
    });
  }
  if (request.partitionEpoch !== current.partitionEpoch) {
    throw new TributaryError("NOT_LEADER_OR_FOLLOWER", `partition epoch ${request.partitionEpoch} is stale`, {
      leaderEpoch: current.leaderEpoch,
      state: current,
    });
  }
  const isr = current.replicas.filter((replica) => request.isr.includes(replica));
  if (!isr.includes(current.leader) || isr.length !== new Set(request.isr).size) {
    throw new TributaryError("INVALID_REQUEST", "an ISR holds replicas of the partition and its leader");
  }
  return { ...current, isr, partitionEpoch: current.partitionEpoch + 1 };
}

/**
 * Elects a new leader when `unreachable` (the current leader) cannot be reached: the first
 * replica in replica order that is in the ISR and `alive`; with unclean election allowed and
 * no such replica, any live replica. The epochs go up and the old leader leaves the ISR.
 * Returns undefined when no replica can lead.
 */
export function electLeader(
  current: PartitionState,
  unreachable: string,
  alive: (replica: string) => boolean,
  uncleanAllowed: boolean,
): PartitionState | undefined {
  const candidates = current.replicas.filter((replica) => replica !== unreachable && alive(replica));
  const clean = candidates.find((replica) => current.isr.includes(replica));
  const leader = clean ?? (uncleanAllowed ? candidates[0] : undefined);
  if (leader === undefined) return undefined;
  const isr = clean ? current.isr.filter((replica) => replica !== unreachable) : [leader];
  return {
    leader,
    replicas: current.replicas,
    isr,
    leaderEpoch: current.leaderEpoch + 1,
    partitionEpoch: current.partitionEpoch + 1,
  };
}
