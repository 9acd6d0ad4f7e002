import { TributaryError, unwrap, type Result } from "../errors.ts";
import { highWatermarkAnnounceQuietMs, produceAckTimeoutMs, replicaCallTimeoutMs, replicationPushBytesMax, replicationRetryMs } from "../limits.ts";
import { Waiters } from "../log/waiters.ts";
import type { ReplicateReply } from "../replication/messages.ts";
import type { PartitionState } from "../replication/partition-state.ts";
import type { ReplicaNode } from "../replication/replica-node.ts";
import type { TierSnapshot } from "./segment-tier.ts";
import { controllerStub, replicaStub } from "../contracts/stubs.ts";

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
 *
 * The high watermark needs no new write to move (ReplicaNode.syncDue): a leader that wakes
 * with records below its log end not yet confirmed — restarted, or newly elected — probes its
 * followers at once (`kick`, which the object calls on waking); and once a follower's pushes
 * have been quiet for highWatermarkAnnounceQuietMs, the alarm sends it the high watermark its
 * last push could not carry. Every push loop arms the alarm before its first answer can
 * acknowledge anything, so an object that dies mid-way is woken to finish. Once every
 * follower holds the log and knows the high watermark, nothing is due and nothing re-arms.
 */
export class ReplicationDriver {
  readonly #host: ReplicationHost;
  readonly #pumps = new Map<string, Promise<void>>();
  /** The tier version each follower has adopted. */
  readonly #tierSent = new Map<string, number>();
  readonly #progress = new Waiters(10_000);
  /** When each follower last took a push with batches (this instance): announcements wait until pushes are quiet. */
  readonly #lastPushMs = new Map<string, number>();
  #altering: Promise<void> | undefined;

  constructor(host: ReplicationHost) {
    this.#host = host;
  }

  /** Starts a push loop for every follower that is behind, lacks the tier or is due a probe, and has none running; returns those started. */
  kick(): Promise<void>[] {
    const node = this.#host.node();
    if (!node?.isLeader) return [];
    return node.followers()
      .filter((follower) => !this.#pumps.has(follower) && (node.isBehind(follower) || this.#tierBehind(follower) || node.syncDue(follower) === "probe"))
      .map((follower) => this.#startPump(follower, false));
  }

  /**
   * The alarm: retry pushes and probes, announce the high watermark where pushes are quiet,
   * reconsider the ISR, and re-arm while anything is pending. It waits for the loops it
   * started for one call's timeout at most: under steady writes a loop goes on pushing after
   * the alarm has returned.
   */
  async tick(): Promise<void> {
    const started = this.kick();
    const node = this.#host.node();
    for (const follower of node?.isLeader ? node.followers() : []) {
      if (!this.#pumps.has(follower) && node!.syncDue(follower) === "announce" && this.#quietAtMs(follower) <= Date.now()) {
        started.push(this.#startPump(follower, true));
      }
    }
    await withTimeout(Promise.allSettled(started), replicaCallTimeoutMs).catch(() => undefined);
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

  #startPump(follower: string, announce: boolean): Promise<void> {
    const pump = this.#pump(follower, announce).finally(() => this.#pumps.delete(follower));
    this.#pumps.set(follower, pump);
    return pump;
  }

  /** When a follower's pushes will have been quiet long enough for an announcement. */
  #quietAtMs(follower: string): number {
    return (this.#lastPushMs.get(follower) ?? 0) + highWatermarkAnnounceQuietMs;
  }

  /**
   * Pushes until the follower holds the log (probing first when due); with `announce` (the
   * alarm's), then sends it the high watermark once. Any other loop arms the alarm first,
   * without waiting for it (the output gate holds an acknowledgement until it is stored): so
   * the follower is told the high watermark later, even if this object dies meanwhile.
   */
  async #pump(follower: string, announce: boolean): Promise<void> {
    const armed = announce ? undefined : this.#host.setAlarm(Date.now() + highWatermarkAnnounceQuietMs);
    try {
      await this.#pushUntilCaughtUp(follower, announce);
    } finally {
      await armed;
    }
    // An alarm that fired while this loop ran found nothing to announce yet: the announcement is
    // armed now. Not after the alarm's own loop: an announcement that failed is not retried.
    if (!announce && this.#host.node()?.syncDue(follower) === "announce") {
      await this.#host.setAlarm(Math.max(this.#quietAtMs(follower), Date.now()));
    }
  }

  async #pushUntilCaughtUp(follower: string, announce: boolean): Promise<void> {
    const { topicId, partition } = this.#host.address();
    let announcing = announce;
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
          node.onTierInstalled(follower, installed, leaderEndAtSend);
          this.#tierSent.set(follower, version);
        } catch {
          await this.#host.setAlarm(Date.now() + replicationRetryMs);
          break;
        }
        continue;
      }
      const next = node.nextFor(follower, { maxBytes: replicationPushBytesMax }, announcing);
      if (!next) break;
      const { kind, request } = next;
      if (kind === "announce") announcing = false; // once per alarm: under writes, pushes carry the high watermark
      let outcome: ReturnType<ReplicaNode["onReply"]>;
      try {
        const reply = await this.#call(stub.replicate({ topicId, partition, region: follower, ...request }));
        outcome = node.onReply(follower, reply, leaderEndAtSend);
        while (outcome.truncate) {
          const truncated = await this.#call(stub.truncate({ topicId, partition, region: follower, ...outcome.truncate }));
          outcome = node.onReply(follower, truncated, leaderEndAtSend);
        }
      } catch {
        // Unreachable or slow: the alarm retries a push or a probe. Not an announcement: the follower's next push carries the high watermark.
        if (kind !== "announce") await this.#host.setAlarm(Date.now() + replicationRetryMs);
        break;
      }
      if (kind === "push") this.#lastPushMs.set(follower, Date.now());
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

  /**
   * Re-arms the alarm while a follower is behind, due a probe, or out of the ISR; and for an
   * announcement that waits for a follower's pushes to be quiet (one that failed is not retried).
   */
  async #armIfPending(): Promise<void> {
    const node = this.#host.node();
    if (node?.role.kind !== "leader") return;
    const { isr, replicas } = node.role.state;
    const followers = node.followers();
    const pending = followers.some((follower) => node.isBehind(follower) || node.syncDue(follower) === "probe") || isr.length < replicas.length;
    if (pending) return this.#host.setAlarm(Date.now() + replicationRetryMs);
    const announceAt = followers
      .filter((follower) => node.syncDue(follower) === "announce" && this.#quietAtMs(follower) > Date.now())
      .map((follower) => this.#quietAtMs(follower));
    if (announceAt.length > 0) await this.#host.setAlarm(Math.min(...announceAt));
  }
}
