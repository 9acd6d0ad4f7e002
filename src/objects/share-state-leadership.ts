import { TributaryError } from "../errors.ts";
import { otherRegions, type StateReplica, type StateSnapshot } from "../replication/state-replication.ts";
import type { SharePartitionKey, ShareStatePayload } from "../contracts/share-partition-api.ts";
import { pullSnapshots, pushSnapshot, type ShareStateRows } from "./share-state-replicas.ts";
import { StateLeadership, type StatePlacement } from "./state-leadership.ts";

/**
 * What a leading share-partition state replica does with the others
 * (src/replication/state-replication.ts has the rules, src/objects/state-leadership.ts the
 * leader's side they share with the schema registry's): pushes each write (committed when every
 * ISR member stored it), brings lagging regions up to date on calls that write nothing, pulls
 * (and fences) at a takeover, and confirms it still leads before refusing an acknowledgement.
 * Deposed at any refusal: NOT_LEADER_OR_FOLLOWER.
 */
export class ShareStateLeadership {
  readonly #env: Env;
  readonly #leadership: StateLeadership<ShareStatePayload>;

  constructor(env: Env, rows: ShareStateRows, replica: () => StateReplica<ShareStatePayload>) {
    this.#env = env;
    this.#leadership = new StateLeadership(replica, {
      saveEpochs: () => rows.saveEpochs(replica()),
      notLeader: (placement, seenEpoch) => notLeader(placement, seenEpoch),
      notEnoughReplicas: (missing) => new TributaryError("NOT_ENOUGH_REPLICAS", `the share-partition state replicas in ${missing.join(", ")} (in-sync) did not answer; retry shortly`),
    });
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
    await this.#push(key, current, this.#leadership.lagging(key, current), []);
  }

  /**
   * The other regions' snapshots at a takeover at the key's epoch, each replica fenced at it
   * (unreachable ones skipped). Deposed when one has seen a newer epoch.
   */
  async pull(key: SharePartitionKey): Promise<(StateSnapshot<ShareStatePayload> | null)[]> {
    this.#leadership.forgetHeld();
    if (key.replicas.length <= 1) return [];
    await this.#leadership.confirmWithController(this.#env, key);
    return this.#leadership.settlePulls(key, await pullSnapshots(this.#env, key, key.leaderEpoch));
  }

  /**
   * Before refusing an acknowledgement without a write (nothing pushed, so nothing would tell a
   * deposed leader): asks the others whether a newer epoch leads, as a takeover's pull does. A
   * deposed leader then answers NOT_LEADER_OR_FOLLOWER (the router retries at the new leader,
   * which may hold the lease), never INVALID_RECORD_STATE. Only on refusals, which are rare.
   */
  async confirm(key: SharePartitionKey): Promise<void> {
    if (key.replicas.length <= 1) return;
    this.#leadership.settlePulls(key, await pullSnapshots(this.#env, key, key.leaderEpoch));
  }

  async #push(key: SharePartitionKey, snapshot: StateSnapshot<ShareStatePayload>, regions: readonly string[], required: readonly string[]): Promise<void> {
    if (regions.length === 0) return;
    this.#leadership.settlePush(key, snapshot, await pushSnapshot(this.#env, key, snapshot, regions), required);
  }
}

export function notLeader(key: StatePlacement, seenEpoch: number): TributaryError {
  return new TributaryError("NOT_LEADER_OR_FOLLOWER", `the share-partition state in ${key.region} does not lead at epoch ${key.leaderEpoch} (epoch ${seenEpoch} seen)`, {
    leaderEpoch: seenEpoch,
  });
}
