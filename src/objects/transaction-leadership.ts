import { TributaryError, unwrap } from "../errors.ts";
import { otherRegions, type PullAnswer, type PushOutcome, type StateReplica } from "../replication/state-replication.ts";
import type { TransactionKey } from "../contracts/transaction-coordinator-api.ts";
import { legacyTransactionCoordinatorStub, transactionReplicaStub } from "../contracts/stubs.ts";
import type { TransactionMetadata } from "../transactions/transaction-metadata.ts";
import { anchorAt, type TransactionSnapshot } from "./transaction-replica-rows.ts";
import { StateLeadership } from "./state-leadership.ts";
import { markSilentFollowers } from "./silent-followers.ts";

/**
 * What a transactional id's leading coordinator replica does with the other regions'
 * (src/replication/state-replication.ts has the rules, src/objects/state-leadership.ts the
 * leader's side shared with share-partition state and the registry): pushes each write, the
 * whole metadata (one small row), committed when every ISR member stored it; brings lagging
 * regions up to date before serving; at a takeover pulls (fencing) the others' snapshots, and
 * the deployment's first replicated leader takes the metadata of the id's object from before
 * replication. Deposed at any refusal: NOT_LEADER_OR_FOLLOWER.
 */
export class TransactionLeadership {
  readonly #env: Env;
  readonly #leadership: StateLeadership<TransactionMetadata>;

  constructor(env: Env, replica: () => StateReplica<TransactionMetadata>, saveEpochs: () => void) {
    this.#env = env;
    this.#leadership = new StateLeadership(replica, {
      saveEpochs,
      notLeader: (placement, seenEpoch) => transactionNotLeader(placement, seenEpoch),
      notEnoughReplicas: (missing) => new TributaryError("NOT_ENOUGH_REPLICAS", `the transaction coordinator's replicas in ${missing.join(", ")} (in-sync) did not answer; retry shortly`),
    });
  }

  /** A write: pushed to every other region, committed when every ISR member stored it. */
  async replicateWrite(key: TransactionKey, transactionalId: string, snapshot: TransactionSnapshot): Promise<void> {
    await this.#push(key, transactionalId, snapshot, otherRegions(key.replicas, key.region));
  }

  /**
   * Before a call is served: every ISR member holds the current snapshot (a write whose push
   * failed is committed before anything is answered from it); regions outside the ISR best-effort,
   * at most once per shareStateSyncRetryMs each.
   */
  async syncLagging(key: TransactionKey, transactionalId: string, current: TransactionSnapshot | null): Promise<void> {
    if (current === null || key.replicas.length <= 1) return;
    await this.#push(key, transactionalId, current, this.#leadership.lagging(key, current, (region) => key.isr.includes(region)));
  }

  /** A takeover at the key's epoch: confirmed by the controller, the others' snapshots pulled (each replica fenced). */
  async pull(key: TransactionKey, transactionalId: string): Promise<(TransactionSnapshot | null)[]> {
    this.#leadership.forgetHeld();
    if (key.replicas.length <= 1) return [];
    await this.#leadership.confirmWithController(this.#env, key);
    return this.#pullAll(key, transactionalId);
  }

  /**
   * Before a refusal written nowhere (nothing pushed, so nothing would tell a deposed leader):
   * asks the others whether a newer epoch leads, as a takeover's pull does. A deposed leader
   * then answers NOT_LEADER_OR_FOLLOWER (the caller retries at the new leader), never a refusal
   * from its stale metadata (PRODUCER_FENCED would end a producer the new leader serves).
   */
  async confirm(key: TransactionKey, transactionalId: string): Promise<void> {
    if (key.replicas.length > 1) await this.#pullAll(key, transactionalId);
  }

  async #pullAll(key: TransactionKey, transactionalId: string): Promise<(TransactionSnapshot | null)[]> {
    const answers = await Promise.all(
      otherRegions(key.replicas, key.region).map(async (region) => {
        try {
          const answer = await transactionReplicaStub(this.#env, transactionalId, key.topicId, region).pull(anchorAt(key, region), transactionalId, key.leaderEpoch);
          return answer.ok ? (answer.value as PullAnswer<TransactionMetadata>) : undefined;
        } catch {
          return undefined;
        }
      }),
    );
    return this.#leadership.settlePulls(key, answers.filter((answer) => answer !== undefined));
  }

  /** The metadata of the id's object from before replication, taken once (it stops acting on it); null when it has none. */
  async takeLegacy(transactionalId: string): Promise<TransactionMetadata | null> {
    return unwrap(await legacyTransactionCoordinatorStub(this.#env, transactionalId).handOver());
  }

  async #push(key: TransactionKey, transactionalId: string, snapshot: TransactionSnapshot, regions: readonly string[]): Promise<void> {
    if (regions.length === 0) return;
    const outcomes = await Promise.all(
      regions.map(async (region): Promise<PushOutcome> => {
        try {
          const answer = await transactionReplicaStub(this.#env, transactionalId, key.topicId, region).replicate(anchorAt(key, region), transactionalId, snapshot);
          return answer.ok ? { region, answer: answer.value } : { region, unreachable: true };
        } catch {
          return { region, unreachable: true };
        }
      }),
    );
    const silent = outcomes.filter((outcome) => "unreachable" in outcome && key.isr.includes(outcome.region)).map(({ region }) => region);
    if (silent.length > 0) await markSilentFollowers(this.#env, key, silent, "transaction-coordinator");
    this.#leadership.settlePush(key, snapshot, outcomes, key.isr);
  }
}

export function transactionNotLeader(key: { region: string; leaderEpoch: number }, seenEpoch: number): TributaryError {
  return new TributaryError("NOT_LEADER_OR_FOLLOWER", `the transaction coordinator's replica in ${key.region} does not lead at epoch ${key.leaderEpoch} (epoch ${seenEpoch} seen)`, {
    leaderEpoch: seenEpoch,
  });
}
