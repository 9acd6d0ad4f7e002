/**
 * The controller of the replication simulation (the Controller object's part in issue 4): it
 * holds the PartitionState, answers AlterPartition with the compare-and-set of
 * partition-state.ts, notices a leader it cannot reach for `detectMs` and elects another with
 * electLeader (never unclean), and says who leads to every replica. The world carries its
 * messages over the fake network.
 */

import { TributaryError } from "../../src/errors.ts";
import { alterPartition, electLeader } from "../../src/replication/partition-state.ts";
import type { AlterPartitionRequest, PartitionState } from "../../src/replication/partition-state.ts";
import type { Message } from "./replication-sim-network.ts";

export type AlterOutcome =
  | { accepted: true; state: PartitionState }
  | { accepted: false; code: string; message: string; known: PartitionState | undefined };

export class SimController {
  state: PartitionState;
  /** The leader elected for each epoch: the one replica allowed to believe it leads it. */
  readonly electedLeaders = new Map<number, string>();
  readonly #detectMs: number;
  #leaderUnreachableSinceMs: number | undefined;

  constructor(replicas: string[], detectMs: number) {
    this.state = { leader: replicas[0]!, replicas, isr: [...replicas], leaderEpoch: 0, partitionEpoch: 0 };
    this.electedLeaders.set(0, replicas[0]!);
    this.#detectMs = detectMs;
  }

  /** AlterPartition; a refusal carries the controller's state when the error does (error.data.state). */
  alter(request: AlterPartitionRequest): AlterOutcome {
    try {
      this.state = alterPartition(this.state, request);
      return { accepted: true, state: this.state };
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      return { accepted: false, code: error.code, message: error.message, known: error.data.state as PartitionState | undefined };
    }
  }

  /**
   * The controller's timer: whether the leader has been unreachable for detectMs (then the
   * caller elects). Reaching it again resets the count.
   */
  leaderLost(nowMs: number, reachable: (replica: string) => boolean): number | undefined {
    if (reachable(this.state.leader)) {
      this.#leaderUnreachableSinceMs = undefined;
      return undefined;
    }
    this.#leaderUnreachableSinceMs ??= nowMs;
    const unreachableMs = nowMs - this.#leaderUnreachableSinceMs;
    return unreachableMs >= this.#detectMs ? unreachableMs : undefined;
  }

  /** A clean election away from the current leader; undefined when no ISR member can lead. */
  elect(reachable: (replica: string) => boolean): PartitionState | undefined {
    const next = electLeader(this.state, this.state.leader, reachable, false);
    if (!next) return undefined;
    this.state = next;
    this.#leaderUnreachableSinceMs = undefined;
    this.electedLeaders.set(next.leaderEpoch, next.leader);
    return next;
  }

  /** What every replica is told: becomeLeader to the leader, becomeFollower to the others. */
  announcements(): { to: string; message: Message }[] {
    const { state } = this;
    return state.replicas.map((to) => ({
      to,
      message: to === state.leader ? { kind: "becomeLeader", state } : { kind: "becomeFollower", leaderEpoch: state.leaderEpoch, leader: state.leader },
    }));
  }
}
