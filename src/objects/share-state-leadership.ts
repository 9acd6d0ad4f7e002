import { TributaryError, unwrap } from "../errors.ts";
import { shareStateSyncRetryMs } from "../limits.ts";
import { commitOutcome, compareStamps, otherRegions, type StateReplica, type StateSnapshot, type StateStamp } from "../share/share-state-replication.ts";
import type { SharePartitionKey, ShareStatePayload } from "../contracts/share-partition-api.ts";
import { pullSnapshots, pushSnapshot, type ShareStateRows } from "./share-state-replicas.ts";
import { controllerStub } from "../contracts/stubs.ts";

/**
 * What a leading state replica does with the others (src/share/share-state-replication.ts):
 * pushes each write (committed when every ISR member stored it), brings lagging regions up to
 * date on calls that write nothing, pulls (and fences) at a takeover, and confirms it still
 * leads before refusing an acknowledgement. Deposed at any refusal: NOT_LEADER_OR_FOLLOWER.
 */
export class ShareStateLeadership {
  readonly #env: Env;
  readonly #rows: ShareStateRows;
  readonly #replica: () => StateReplica<ShareStatePayload>;
  /** The newest snapshot each other region acknowledged since this replica led (memory only: after a restart each is pushed to once). */
  readonly #acknowledgedBy = new Map<string, StateStamp>();
  /** When a region that did not answer is tried again by a call that writes nothing. */
  readonly #retryAfterMs = new Map<string, number>();

  constructor(env: Env, rows: ShareStateRows, replica: () => StateReplica<ShareStatePayload>) {
    this.#env = env;
    this.#rows = rows;
    this.#replica = replica;
  }

  /** A write: pushed to every other region, committed when every ISR member stored it. */
  async replicateWrite(key: SharePartitionKey, snapshot: StateSnapshot<ShareStatePayload>): Promise<void> {
    await this.#push(key, snapshot, otherRegions(key.replicas, key.region), key.isr);
  }

  /**
   * A call that wrote nothing: the regions not known to hold `current` (a push failed, they came
   * back, this replica restarted or took over) get it, best-effort, at most once per
   * shareStateSyncRetryMs each — so a region that returns holds the state before its log
   * replica can rejoin the ISR and be elected. Nothing to do while every region is in sync.
   */
  async syncLagging(key: SharePartitionKey, current: StateSnapshot<ShareStatePayload>): Promise<void> {
    const nowMs = Date.now();
    const lagging = otherRegions(key.replicas, key.region).filter((region) => {
      const acknowledged = this.#acknowledgedBy.get(region);
      return (acknowledged === undefined || compareStamps(acknowledged, current) < 0) && (this.#retryAfterMs.get(region) ?? 0) <= nowMs;
    });
    await this.#push(key, current, lagging, []);
  }

  /**
   * The other regions' snapshots at a takeover at the key's epoch, each replica fenced at it
   * (unreachable ones skipped). Deposed when one has seen a newer epoch.
   */
  async pull(key: SharePartitionKey): Promise<(StateSnapshot<ShareStatePayload> | null)[]> {
    this.#acknowledgedBy.clear();
    if (key.replicas.length <= 1) return [];
    await this.#confirmWithController(key);
    const answers = await pullSnapshots(this.#env, key, key.leaderEpoch);
    this.#deposedBy(key, Math.max(0, ...answers.map((answer) => ("refusedAt" in answer ? answer.refusedAt : 0))));
    return answers.map((answer) => ("snapshot" in answer ? answer.snapshot : null));
  }

  /**
   * Before refusing an acknowledgement without a write (nothing pushed, so nothing would tell a
   * deposed leader): asks the others whether a newer epoch leads, as a takeover's pull does. A
   * deposed leader then answers NOT_LEADER_OR_FOLLOWER (the router retries at the new leader,
   * which may hold the lease), never INVALID_RECORD_STATE. Only on refusals, which are rare.
   */
  async confirm(key: SharePartitionKey): Promise<void> {
    if (key.replicas.length <= 1) return;
    const answers = await pullSnapshots(this.#env, key, key.leaderEpoch);
    this.#deposedBy(key, Math.max(0, ...answers.map((answer) => ("refusedAt" in answer ? answer.refusedAt : 0))));
  }

  /**
   * A takeover serves an epoch only while the controller names this region its leader: a
   * router's metadata may be seconds old, and a replica whose storage were lost would otherwise
   * lead an epoch that another incarnation of it already led (two histories at one epoch).
   */
  async #confirmWithController(key: SharePartitionKey): Promise<void> {
    const topic = unwrap(await controllerStub(this.#env).describeTopic(key.topic));
    const placement = topic.topicId === key.topicId ? topic.partitions[key.partition] : undefined;
    if (placement === undefined) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${key.topic} partition ${key.partition} no longer exists`);
    if (placement.leader !== key.region || placement.leaderEpoch !== key.leaderEpoch) this.#deposedBy(key, Math.max(placement.leaderEpoch, key.leaderEpoch + 1));
  }

  async #push(key: SharePartitionKey, snapshot: StateSnapshot<ShareStatePayload>, regions: readonly string[], required: readonly string[]): Promise<void> {
    if (regions.length === 0) return;
    const outcomes = await pushSnapshot(this.#env, key, snapshot, regions);
    for (const outcome of outcomes) {
      if ("answer" in outcome && "stored" in outcome.answer) this.#acknowledgedBy.set(outcome.region, { epoch: snapshot.epoch, version: snapshot.version });
      else if ("unreachable" in outcome) this.#retryAfterMs.set(outcome.region, Date.now() + shareStateSyncRetryMs);
    }
    const outcome = commitOutcome(outcomes, required);
    if (outcome.kind === "deposed") this.#deposedBy(key, outcome.seenEpoch);
    if (outcome.kind === "not-enough-replicas") {
      throw new TributaryError("NOT_ENOUGH_REPLICAS", `the share-partition state replicas in ${outcome.missing.join(", ")} (in-sync) did not answer; retry shortly`);
    }
  }

  /** A replica has seen `seenEpoch`: when newer than the key's, this one is deposed (remembered) and refuses. */
  #deposedBy(key: SharePartitionKey, seenEpoch: number): void {
    if (seenEpoch <= key.leaderEpoch) return;
    this.#replica().deposedAt(seenEpoch);
    this.#rows.saveEpochs(this.#replica());
    throw notLeader(key, seenEpoch);
  }
}

export function notLeader(key: SharePartitionKey, seenEpoch: number): TributaryError {
  return new TributaryError("NOT_LEADER_OR_FOLLOWER", `the share-partition state in ${key.region} does not lead at epoch ${key.leaderEpoch} (epoch ${seenEpoch} seen)`, {
    leaderEpoch: seenEpoch,
  });
}
