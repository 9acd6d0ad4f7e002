/**
 * Replication of state across regions (ARCHITECTURE.md decisions 5 and 13), pure: the rules one
 * state replica follows, whatever the state (a share-partition's window; the schema registry,
 * docs/schema-registry.md), whatever carries its messages and stores its rows. The leader's side
 * of the objects is src/objects/state-leadership.ts.
 *
 * There is one state replica per replica region of the partition the state is anchored to (a
 * share-partition's source partition; the registry's `_schemas` partition). The router calls the
 * one in the partition leader's region, with the partition's leader epoch and its replicas and
 * ISR as the router's metadata has them. That replica leads the state at that epoch:
 *
 * - every change it writes becomes a snapshot stamped (epoch, version), written to its own row
 *   first, then pushed to the state replicas of the other regions before it answers; the
 *   change is committed once every ISR member's replica stored it (acks "all"); replicas
 *   outside the ISR get the push best-effort;
 * - a replica stores a pushed snapshot only when its stamp is not older than its own, and
 *   refuses any push or pull tagged with an epoch older than the newest it has seen — a
 *   refusal tells the leader it was deposed (NOT_LEADER_OR_FOLLOWER, nothing answered);
 * - the first call at an epoch newer than the replica leads first pulls the other regions'
 *   snapshots (each pull raises that replica's seen epoch, fencing the old leader there), and
 *   adopts the newest stamp it sees, its own included. Then it serves.
 *
 * Stamps order snapshots by epoch first: a leader of a newer epoch supersedes whatever an old
 * leader wrote after the takeover, even with a larger version. A state too large to push whole
 * at every write (the registry) pushes each change on the stamp it was made on instead
 * (`acceptChange`), and the whole snapshot to a replica that does not hold that stamp.
 */

/** A snapshot's place in the order of writes: the leader epoch it was written at, then a counter. */
export interface StateStamp {
  epoch: number;
  version: number;
}

export interface StateSnapshot<P> extends StateStamp {
  payload: P;
}

/** What a leader call at an epoch comes to. */
export type LeaderCallDecision = "refuse" | "take-over" | "serve";

/** A push or pull answered: a refusal carries the newest epoch the replica has seen. */
export type PushAnswer = { stored: boolean } | { refusedAt: number };
export type PullAnswer<P> = { snapshot: StateSnapshot<P> | null } | { refusedAt: number };
/** A change pushed on top of a stamp (state too large to push whole): `behind` asks the leader for its whole snapshot. */
export type ChangeAnswer = PushAnswer | { behind: true };

/** A push's fate at one region, as the leader saw it. */
export type PushOutcome = { region: string; answer: PushAnswer } | { region: string; unreachable: true };

export type CommitOutcome = { kind: "committed" } | { kind: "deposed"; seenEpoch: number } | { kind: "not-enough-replicas"; missing: string[] };

/** Negative when `a` is older than `b`, zero when equal. */
export function compareStamps(a: StateStamp, b: StateStamp): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.version - b.version;
}

/** The newest of the snapshots (the first of equals: the caller's own goes first), or null when none. */
export function newestSnapshot<P>(snapshots: readonly (StateSnapshot<P> | null)[]): StateSnapshot<P> | null {
  let newest: StateSnapshot<P> | null = null;
  for (const snapshot of snapshots) {
    if (snapshot !== null && (newest === null || compareStamps(snapshot, newest) > 0)) newest = snapshot;
  }
  return newest;
}

/**
 * Whether a write committed: deposed when any replica (in the ISR or not) has seen a newer
 * epoch; else committed when every ISR member other than the leader stored it (or holds newer).
 */
export function commitOutcome(outcomes: readonly PushOutcome[], isr: readonly string[]): CommitOutcome {
  const refusals = outcomes.flatMap((outcome) => ("answer" in outcome && "refusedAt" in outcome.answer ? [outcome.answer.refusedAt] : []));
  if (refusals.length > 0) return { kind: "deposed", seenEpoch: Math.max(...refusals) };
  const missing = outcomes.filter((outcome) => "unreachable" in outcome && isr.includes(outcome.region)).map(({ region }) => region);
  return missing.length > 0 ? { kind: "not-enough-replicas", missing } : { kind: "committed" };
}

/** The other regions a leader pushes to or pulls from. */
export function otherRegions(replicas: readonly string[], self: string): string[] {
  return replicas.filter((region) => region !== self);
}

/** A replica that has seen no epoch, or leads at none (leader epochs start at 0). */
export const noEpoch = -1;

/**
 * One state replica's replication state: the newest epoch it has seen, the epoch it leads at
 * (noEpoch: none), and its snapshot. The object persists `seenEpoch` and `leadingEpoch` (a
 * forgotten seen epoch would let a deposed leader commit) and the snapshot as its row.
 */
export class StateReplica<P> {
  seenEpoch: number;
  leadingEpoch: number;
  current: StateSnapshot<P> | null;
  /** The version of the last snapshot cleared: versions never go back, so a cleared state is never taken for a newer one. */
  versionFloor: number;

  constructor(seenEpoch = noEpoch, leadingEpoch = noEpoch, current: StateSnapshot<P> | null = null, versionFloor = 0) {
    this.seenEpoch = seenEpoch;
    this.leadingEpoch = leadingEpoch;
    this.current = current;
    this.versionFloor = versionFloor;
  }

  /** Forgets the snapshot (a group's deletion); the epochs and the version count stay. */
  clear(): void {
    this.versionFloor = Math.max(this.versionFloor, this.current?.version ?? 0);
    this.current = null;
  }

  /** A call from a router that names this replica the leader at `epoch`. */
  leaderCall(epoch: number): LeaderCallDecision {
    if (epoch < this.seenEpoch) return "refuse";
    return epoch === this.leadingEpoch ? "serve" : "take-over";
  }

  /** A takeover at `epoch` begins: from now on, pushes and pulls of older epochs are refused. */
  beginTakeover(epoch: number): void {
    if (epoch < this.seenEpoch) throw new Error(`takeover at epoch ${epoch} after epoch ${this.seenEpoch} was seen`);
    this.seenEpoch = epoch;
  }

  /** Adopts the newest of its own snapshot and the ones pulled, and leads at `epoch`. */
  finishTakeover(epoch: number, pulled: readonly (StateSnapshot<P> | null)[]): StateSnapshot<P> | null {
    this.current = newestSnapshot([this.current, ...pulled]);
    this.leadingEpoch = epoch;
    return this.current;
  }

  /** A pull by the leader of `epoch`: refused when a newer epoch was seen; else the snapshot, this replica fenced at `epoch`. */
  answerPull(epoch: number): PullAnswer<P> {
    if (epoch < this.seenEpoch) return { refusedAt: this.seenEpoch };
    this.seenEpoch = epoch;
    return { snapshot: this.current };
  }

  /** A snapshot pushed by a leader: refused when its epoch is older than one seen; stored when not older than this replica's. */
  acceptPush(snapshot: StateSnapshot<P>): PushAnswer {
    if (snapshot.epoch < this.seenEpoch) return { refusedAt: this.seenEpoch };
    this.seenEpoch = snapshot.epoch;
    if (this.current !== null && compareStamps(snapshot, this.current) < 0) return { stored: false };
    this.current = snapshot;
    return { stored: true };
  }

  /**
   * A change pushed by a leader on top of `base` (the stamp it had before the change): refused
   * as a push is; stored when this replica holds exactly `base` (it then holds `next`), already
   * stored when it holds `next` or newer; else behind (it missed a change, or holds a deposed
   * leader's write): the leader sends its whole snapshot, taken by `acceptPush`.
   */
  acceptChange(base: StateStamp | null, next: StateSnapshot<P>): ChangeAnswer {
    if (next.epoch < this.seenEpoch) return { refusedAt: this.seenEpoch };
    this.seenEpoch = next.epoch;
    const current = this.current;
    if (current !== null && compareStamps(next, current) <= 0) return { stored: compareStamps(next, current) === 0 };
    const holdsBase = base === null ? current === null && this.versionFloor === 0 : current !== null && compareStamps(base, current) === 0;
    if (!holdsBase) return { behind: true };
    this.current = next;
    return { stored: true };
  }

  /** The leader's next write: stamped after everything this replica has. */
  stamp(payload: P): StateSnapshot<P> {
    if (this.leadingEpoch === noEpoch || this.leadingEpoch < this.seenEpoch) throw new Error(`not leading (seen epoch ${this.seenEpoch}, leading ${this.leadingEpoch})`);
    this.current = { epoch: this.leadingEpoch, version: Math.max(this.current?.version ?? 0, this.versionFloor) + 1, payload };
    return this.current;
  }

  /** A replica answered that it saw `epoch`: when newer, this replica no longer leads. */
  deposedAt(epoch: number): void {
    this.seenEpoch = Math.max(this.seenEpoch, epoch);
  }

  /** Whether it leads now (serves without a takeover). */
  get leading(): boolean {
    return this.leadingEpoch !== noEpoch && this.leadingEpoch === this.seenEpoch;
  }
}
