import { TributaryError, unwrap, type Result } from "../errors.ts";
import { produceAckTimeoutMs, replicaCallTimeoutMs, replicationPushBytesMax, replicationRetryMs } from "../limits.ts";
import { Waiters } from "../log/waiters.ts";
import type { ReplicateReply } from "../replication/messages.ts";
import type { PartitionState } from "../replication/partition-state.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import type { TierSnapshot } from "./segment-tier.ts";
import { controllerStub, replicaStub } from "./stubs.ts";

/** What the driver needs from its object: the node, who it is, and how to persist and announce changes. */
export interface ReplicationHost {
  readonly env: Env;
  node(): ReplicaNode | undefined;
  address(): { topicId: string; partition: number };
  config(): { minInsyncReplicas: number; replicaLagMaxMs: number };
  /** The role changed (fenced, or a new ISR): persist it. */
  persistRole(): void;
  /** The high watermark may have moved: wake readers. */
  onProgress(): void;
  /** This replica's tier: its version (bumped on every manifest change) and what followers adopt. */
  tier(): { version: number; snapshot(): TierSnapshot } | undefined;
  setAlarm(atMs: number): Promise<void>;
}

/** Waits for `promise` at most `ms`; a timeout is a failed call, like an unreachable replica. */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The state in an AlterPartition answer: the new one when accepted, the controller's current one when refused. */
function stateIn(result: Result<PartitionState>): PartitionState | undefined {
  if (result.ok) return result.value;
  return result.error.data?.state as PartitionState | undefined;
}

/**
 * A leader's replication loop (ARCHITECTURE.md decision 5): one push loop per follower
 * (never two at once for the same follower), AlterPartition at the controller when the ISR
 * should change, and waiters for acks "all". A failed push is not lost: the follower stays
 * behind, the object's alarm retries every replicationRetryMs, and a follower behind for
 * longer than replica.lag.time.max.ms leaves the ISR.
 */
export class ReplicationDriver {
  readonly #host: ReplicationHost;
  readonly #pumps = new Map<string, Promise<void>>();
  /** The tier version each follower has adopted. */
  readonly #tierSent = new Map<string, number>();
  readonly #progress = new Waiters(10_000);
  #altering: Promise<void> | undefined;

  constructor(host: ReplicationHost) {
    this.#host = host;
  }

  /** Starts a push loop for every follower that is behind and has none running. */
  kick(): void {
    const node = this.#host.node();
    if (!node?.isLeader) return;
    for (const follower of node.followers()) {
      if ((!node.isBehind(follower) && !this.#tierBehind(follower)) || this.#pumps.has(follower)) continue;
      const pump = this.#pump(follower).finally(() => this.#pumps.delete(follower));
      this.#pumps.set(follower, pump);
    }
  }

  /** The alarm: retry pushes, reconsider the ISR, and re-arm while anything is pending. */
  async tick(): Promise<void> {
    this.kick();
    await Promise.allSettled([...this.#pumps.values()]);
    await this.#alterIsrIfNeeded();
    await this.#armIfPending();
  }

  /**
   * Resolves once the records before `endOffset` are on every in-sync replica and the ISR
   * has at least min.insync.replicas members (a follower catching up may rejoin meanwhile);
   * fails as NOT_LEADER_OR_FOLLOWER when this replica is deposed meanwhile, and after
   * produceAckTimeoutMs as NOT_ENOUGH_REPLICAS when the ISR is still below the minimum, else
   * REQUEST_TIMED_OUT.
   */
  async awaitAcknowledged(endOffset: number): Promise<void> {
    const deadline = Date.now() + produceAckTimeoutMs;
    for (;;) {
      const node = this.#host.node();
      if (!node?.isLeader) {
        throw new TributaryError("NOT_LEADER_OR_FOLLOWER", "this replica lost its leadership before the write was replicated", {
          leaderEpoch: node?.leaderEpoch ?? -1,
        });
      }
      const { minInsyncReplicas } = this.#host.config();
      const isr = node.inSyncReplicas.length;
      if (node.log.highWatermark >= endOffset && isr >= minInsyncReplicas) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0 && isr < minInsyncReplicas) {
        // The ISR shrank below the minimum after the append and no follower rejoined in time.
        throw new TributaryError("NOT_ENOUGH_REPLICAS", `the ISR has ${isr} replicas; min.insync.replicas is ${minInsyncReplicas}`);
      }
      if (remaining <= 0) throw new TributaryError("REQUEST_TIMED_OUT", "the in-sync replicas did not confirm the write in time");
      await this.#progress.wait(remaining);
    }
  }

  /** Wakes acks waiters (the role or the ISR changed). */
  wake(): void {
    this.#progress.wakeAll();
  }

  #tierBehind(follower: string): boolean {
    const tier = this.#host.tier();
    return tier !== undefined && tier.version > 0 && this.#tierSent.get(follower) !== tier.version;
  }

  async #pump(follower: string): Promise<void> {
    const { topicId, partition } = this.#host.address();
    for (;;) {
      const node = this.#host.node();
      const tier = this.#host.tier();
      if (!node?.isLeader || !tier) break;
      const stub = replicaStub(this.#host.env, topicId, partition, follower);
      const leaderEndAtSend = node.log.logEndOffset;
      if (this.#tierBehind(follower) || node.needsTier(follower)) {
        const version = tier.version;
        try {
          const installed = await this.#call(
            stub.installTier({ topicId, partition, region: follower, leader: node.region, leaderEpoch: node.leaderEpoch, ...tier.snapshot() }),
          );
          node.onReply(follower, installed, leaderEndAtSend);
          this.#tierSent.set(follower, version);
        } catch {
          await this.#host.setAlarm(Date.now() + replicationRetryMs);
          break;
        }
        continue;
      }
      const request = node.pushFor(follower, { maxBytes: replicationPushBytesMax });
      if (!request) break;
      let outcome: ReturnType<ReplicaNode["onReply"]>;
      try {
        const reply = await this.#call(stub.replicate({ topicId, partition, region: follower, ...request }));
        outcome = node.onReply(follower, reply, leaderEndAtSend);
        while (outcome.truncate) {
          const truncated = await this.#call(stub.truncate({ topicId, partition, region: follower, ...outcome.truncate }));
          outcome = node.onReply(follower, truncated, leaderEndAtSend);
        }
      } catch {
        await this.#host.setAlarm(Date.now() + replicationRetryMs); // unreachable or slow: the alarm retries
        break;
      }
      if (outcome.fenced) {
        this.#host.persistRole();
        this.wake();
        break;
      }
      this.#host.onProgress();
      this.wake();
      await this.#alterIsrIfNeeded();
    }
  }

  async #call(call: Promise<Result<ReplicateReply>>): Promise<ReplicateReply> {
    return unwrap(await withTimeout(call, replicaCallTimeoutMs));
  }

  /** AlterPartition when the leader's view says the ISR should change; one at a time. */
  async #alterIsrIfNeeded(): Promise<void> {
    if (this.#altering) return this.#altering;
    this.#altering = this.#alterIsr().finally(() => (this.#altering = undefined));
    return this.#altering;
  }

  async #alterIsr(): Promise<void> {
    const node = this.#host.node();
    if (!node || node.role.kind !== "leader") return;
    const isr = node.proposedIsr(Date.now(), this.#host.config().replicaLagMaxMs);
    if (!isr || node.role.kind !== "leader") return;
    // The proposal counts toward the high watermark until the controller answers, across restarts too.
    this.#host.persistRole();
    const { state } = node.role;
    const { topicId, partition } = this.#host.address();
    let result: Result<PartitionState>;
    try {
      result = await withTimeout(
        controllerStub(this.#host.env).alterPartition({ topicId, partition, leader: state.leader, leaderEpoch: state.leaderEpoch, partitionEpoch: state.partitionEpoch, isr }),
        replicaCallTimeoutMs,
      );
    } catch {
      await this.#host.setAlarm(Date.now() + replicationRetryMs);
      return;
    }
    // Accepted: the new ISR. Refused: the controller's current state, which this replica adopts.
    const current = stateIn(result);
    if (current?.leader === node.region) node.becomeLeader(current);
    else if (current) node.becomeFollower(current.leaderEpoch, current.leader);
    else node.clearIsrProposal();
    this.#host.persistRole();
    this.#host.onProgress();
    this.wake();
  }

  /** Re-arms the alarm while a follower is behind or out of the ISR. */
  async #armIfPending(): Promise<void> {
    const node = this.#host.node();
    if (node?.role.kind !== "leader") return;
    const pending = node.followers().some((follower) => node.isBehind(follower)) || node.role.state.isr.length < node.role.state.replicas.length;
    if (pending) await this.#host.setAlarm(Date.now() + replicationRetryMs);
  }
}
