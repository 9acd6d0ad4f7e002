/**
 * One simulated replica — a PartitionReplica object's pure part — and what survives its
 * crash. Choice made here (the brief leaves it open): the object persists its role after every
 * call, atomically with its log — a leader the PartitionState it was given, a follower its
 * leader epoch and leader. A restart builds a new ReplicaNode over the same store as a
 * follower of that epoch and, if it was leading, calls becomeLeader(persisted state), as the
 * object would on waking (a node built with a leader role has no follower progress: see
 * known bug 6).
 */

import type { MemoryLogStore } from "../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../src/log/partition-log.ts";
import { MemoryTransactionStore, type TransactionStore } from "../../src/log/transaction-state.ts";
import { ReplicaNode } from "../../src/replication/replica-node.ts";
import type { ReplicaRole } from "../../src/replication/replica-node.ts";
import type { LogView, ObservedStore } from "./replication-sim-log-view.ts";
import { describeState } from "./replication-sim-network.ts";

export interface SimReplica {
  region: string;
  store: ObservedStore;
  /** The log's transaction state (open transactions, markers, aborted index): stored with the log, so it survives a crash as the object's SQLite does. */
  transactions: MemoryTransactionStore;
  view: LogView;
  node: ReplicaNode;
  crashed: boolean;
  /** Cut off from everyone: replicas, the controller, clients. */
  isolated: boolean;
  /** Cut off from the controller only: it keeps leading (or following) whoever it reaches. */
  cutFromController: boolean;
  /** Bumped by each restart: answers to calls made before it have no caller any more. */
  incarnation: number;
  /** The role as of the last call, as the object stores it. */
  persisted: ReplicaRole;
}

/** How a world builds a replica's log: the real PartitionLog, or (an injected bug) a subclass doing one duty wrong. */
export type LogFactory = (store: MemoryLogStore, transactions: TransactionStore) => PartitionLog;

const realLog: LogFactory = (store, transactions) => new PartitionLog(store, transactions);

/** A ReplicaNode over `store` and its transaction state, in the persisted role. */
export function buildNode(region: string, store: MemoryLogStore, role: ReplicaRole, transactions: TransactionStore, makeLog: LogFactory = realLog): ReplicaNode {
  return new ReplicaNode(region, makeLog(store, transactions), copyRole(role));
}

/** The role as the object would store it: a copy. */
export function copyRole(role: ReplicaRole): ReplicaRole {
  if (role.kind !== "leader") return { ...role };
  const state = { ...role.state, replicas: [...role.state.replicas], isr: [...role.state.isr] };
  return role.pendingIsr ? { kind: "leader", state, pendingIsr: [...role.pendingIsr] } : { kind: "leader", state };
}

export function describeRole(role: ReplicaRole): string {
  return role.kind === "leader" ? `leader ${describeState(role.state)}` : `follower e${role.leaderEpoch} of ${role.leader ?? "?"}`;
}

/** Whether the controller can reach it. */
export function reachable(replica: SimReplica): boolean {
  return !replica.crashed && !replica.isolated && !replica.cutFromController;
}
