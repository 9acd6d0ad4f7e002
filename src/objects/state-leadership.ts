import { TributaryError, unwrap } from "../errors.ts";
import { shareStateSyncRetryMs } from "../limits.ts";
import { commitOutcome, compareStamps, otherRegions, type PullAnswer, type PushOutcome, type StateReplica, type StateSnapshot, type StateStamp } from "../replication/state-replication.ts";
import { controllerStub } from "../contracts/stubs.ts";

/**
 * The leader's side of state replicated across regions by src/replication/state-replication.ts's
 * rules, whatever the state (a share-partition's window, the schema registry) and however it
 * travels: which regions hold the leader's newest stamp, which to bring up to date, a push's
 * outcomes settled (committed when every ISR member stored it, deposed at any refusal), pulls
 * settled, and the controller's word at a takeover. The callers send and receive their own
 * messages (src/objects/share-state-leadership.ts, registry-leadership.ts).
 */

/** Where the state's leader stands, as its caller's metadata has it: the anchor partition's placement. */
export interface StatePlacement {
  topic: string;
  topicId: string;
  partition: number;
  region: string;
  replicas: readonly string[];
  isr: readonly string[];
  leaderEpoch: number;
}

/** What differs between the states: how a deposition is remembered and how refusals are worded. */
export interface StateLeadershipHooks {
  /** Stores the replica's epochs (a deposed leader must still refuse after a restart). */
  saveEpochs(): void;
  notLeader(placement: StatePlacement, seenEpoch: number): TributaryError;
  notEnoughReplicas(missing: string[]): TributaryError;
}

export class StateLeadership<P> {
  readonly #replica: () => StateReplica<P>;
  readonly #hooks: StateLeadershipHooks;
  /** The newest stamp each other region acknowledged since this replica led (memory only: after a restart each is pushed to once). */
  readonly #heldBy = new Map<string, StateStamp>();
  /** When a region that did not answer is tried again by a call that writes nothing. */
  readonly #retryAfterMs = new Map<string, number>();

  constructor(replica: () => StateReplica<P>, hooks: StateLeadershipHooks) {
    this.#replica = replica;
    this.#hooks = hooks;
  }

  /** A takeover begins: no other region is known to hold anything yet. */
  forgetHeld(): void {
    this.#heldBy.clear();
  }

  /** A region is known to hold `stamp` (a pull answered it). */
  noteHeld(region: string, stamp: StateStamp): void {
    this.#heldBy.set(region, stamp);
  }

  /**
   * The other regions not known to hold `current`, each at most once per shareStateSyncRetryMs
   * after it did not answer — but always those `always` names (in-sync ones a caller must not
   * serve without).
   */
  lagging(placement: StatePlacement, current: StateStamp, always: (region: string) => boolean = () => false): string[] {
    const nowMs = Date.now();
    return otherRegions(placement.replicas, placement.region).filter((region) => {
      const held = this.#heldBy.get(region);
      const behind = held === undefined || compareStamps(held, current) < 0;
      return behind && (always(region) || (this.#retryAfterMs.get(region) ?? 0) <= nowMs);
    });
  }

  /** A push of `stamp` answered: who holds it now; committed when every `required` region stored it; else deposed or NOT_ENOUGH_REPLICAS. */
  settlePush(placement: StatePlacement, stamp: StateStamp, outcomes: readonly PushOutcome[], required: readonly string[]): void {
    for (const outcome of outcomes) {
      if ("answer" in outcome && "stored" in outcome.answer) this.#heldBy.set(outcome.region, { epoch: stamp.epoch, version: stamp.version });
      else if ("unreachable" in outcome) this.#retryAfterMs.set(outcome.region, Date.now() + shareStateSyncRetryMs);
    }
    const outcome = commitOutcome(outcomes, required);
    if (outcome.kind === "deposed") this.deposedBy(placement, outcome.seenEpoch);
    if (outcome.kind === "not-enough-replicas") throw this.#hooks.notEnoughReplicas(outcome.missing);
  }

  /** Pulls answered (unreachable ones left out): deposed when one has seen a newer epoch; else the snapshots. */
  settlePulls<S>(placement: StatePlacement, answers: readonly PullAnswer<S>[]): (StateSnapshot<S> | null)[] {
    this.deposedBy(placement, Math.max(0, ...answers.map((answer) => ("refusedAt" in answer ? answer.refusedAt : 0))));
    return answers.map((answer) => ("snapshot" in answer ? answer.snapshot : null));
  }

  /**
   * A takeover serves an epoch only while the controller names this region its leader: a
   * router's metadata may be seconds old, and a replica whose storage were lost would otherwise
   * lead an epoch that another incarnation of it already led (two histories at one epoch).
   */
  async confirmWithController(env: Env, placement: StatePlacement): Promise<void> {
    const topic = unwrap(await controllerStub(env).describeTopic(placement.topic));
    const current = topic.topicId === placement.topicId ? topic.partitions[placement.partition] : undefined;
    if (current === undefined) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${placement.topic} partition ${placement.partition} no longer exists`);
    if (current.leader !== placement.region || current.leaderEpoch !== placement.leaderEpoch) this.deposedBy(placement, Math.max(current.leaderEpoch, placement.leaderEpoch + 1));
  }

  /** A replica has seen `seenEpoch`: when newer than the placement's, this one is deposed (remembered) and refuses. */
  deposedBy(placement: StatePlacement, seenEpoch: number): void {
    if (seenEpoch <= placement.leaderEpoch) return;
    this.#replica().deposedAt(seenEpoch);
    this.#hooks.saveEpochs();
    throw this.#hooks.notLeader(placement, seenEpoch);
  }
}

/**
 * The leader call's gate, the same for every replicated state: a call at an epoch this replica
 * leads is served; one at an older epoch than it has seen is refused; one at a newer epoch
 * waits for a takeover (one at a time: concurrent calls join it), then decides again.
 */
export class TakeoverGate {
  #takingOver: Promise<void> | null = null;

  async lead(replica: () => StateReplica<unknown>, epoch: number, refuse: (seenEpoch: number) => Error, takeOver: () => Promise<void>): Promise<void> {
    for (;;) {
      const decision = replica().leaderCall(epoch);
      if (decision === "serve") return;
      if (decision === "refuse") throw refuse(replica().seenEpoch);
      this.#takingOver ??= takeOver().finally(() => (this.#takingOver = null));
      await this.#takingOver;
    }
  }
}
