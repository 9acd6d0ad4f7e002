/**
 * Members' contact times across coordinator restarts (src/limits.ts, memberContactPersistDivisor).
 *
 * A coordinator writes its state row when the group's revision moves, and contact times move
 * on every heartbeat without it. Writing them on every heartbeat would cost a row per
 * heartbeat; never writing them made every restart a fresh session for every member, and an
 * idle object is restarted by its own expiry alarm, so a dead member with a long session was
 * never removed (issue 12). The rule here, for each member:
 *
 *   the row's contact time ≤ the member's real last contact < the row's time + lag
 *
 * where lag = sessionTimeoutMs / memberContactPersistDivisor: `due` asks for a write as soon as
 * a contact gets `lag` past the row. At load a member counts as heard from at
 * min(row + lag, now), which is never before its real last contact (no early expiry) and at
 * most `lag` after it (the slack). A restored time is a guess, not a contact: it is never
 * written back, or each restart would push a dead member's deadline a further `lag` away.
 *
 * Pure: no clock (callers pass `nowMs`), no I/O.
 */

import { memberContactPersistDivisor } from "../limits.ts";

/** A member as far as contacts go: a server-assigned member's state (group-state.ts) or a classic one's (classic-group-state.ts). */
export interface MemberContact {
  memberId: string;
  lastContactMs: number;
  sessionTimeoutMs: number;
}

/** What a state or a description holds of its members: the row's state, or several states' members together. */
interface WithMembers<Member> {
  members: Member[];
}

/** How far a member's contact may run past the row's before the row is written. */
export function contactPersistLagMsFor(sessionTimeoutMs: number): number {
  return Math.floor(sessionTimeoutMs / memberContactPersistDivisor);
}

export class PersistedContacts {
  /** The contact time the row holds, per member. */
  #row = new Map<string, number>();
  /** The contact time given at load, per member not heard from since. */
  #restored = new Map<string, number>();

  /**
   * A state just read from the row: remembers its contact times and replaces each with the
   * latest time the member may have been heard from (mutates `state`).
   */
  load(state: WithMembers<MemberContact>, nowMs: number): void {
    this.#row = new Map(state.members.map((member) => [member.memberId, member.lastContactMs]));
    this.#restored.clear();
    for (const member of state.members) {
      member.lastContactMs = Math.min(member.lastContactMs + contactPersistLagMsFor(member.sessionTimeoutMs), nowMs);
      this.#restored.set(member.memberId, member.lastContactMs);
    }
  }

  /** Must the row be written for contact times alone? True when some member's contact ran `lag` past the row's. */
  due(members: Iterable<MemberContact>): boolean {
    for (const member of members) {
      if (this.#restored.get(member.memberId) === member.lastContactMs) continue;
      const row = this.#row.get(member.memberId);
      if (row === undefined || member.lastContactMs - row >= contactPersistLagMsFor(member.sessionTimeoutMs)) return true;
    }
    return false;
  }

  /**
   * What describe shows as each member's last heartbeat: one the coordinator knows happened —
   * for a member not heard from since the load, the row's (its real last one may be later,
   * by less than `lag`), never the restored guess.
   */
  describe<Description extends WithMembers<{ memberId: string; lastHeartbeatAt: number }>>(description: Description): Description {
    const members = description.members.map((member) => {
      const known = this.#restored.get(member.memberId) === member.lastHeartbeatAt ? this.#row.get(member.memberId) : undefined;
      return known === undefined ? member : { ...member, lastHeartbeatAt: known };
    });
    return { ...description, members };
  }

  /**
   * The state about to be written (mutated): a member not heard from since the load keeps the
   * row's contact time. Afterwards the row holds what `state` holds.
   */
  toRow<State extends WithMembers<MemberContact>>(state: State | null): State | null {
    const row = new Map<string, number>();
    const restored = new Map<string, number>();
    for (const member of state?.members ?? []) {
      const restoredMs = this.#restored.get(member.memberId);
      const rowMs = this.#row.get(member.memberId);
      if (restoredMs !== undefined && restoredMs === member.lastContactMs && rowMs !== undefined) {
        restored.set(member.memberId, restoredMs);
        member.lastContactMs = rowMs;
      }
      row.set(member.memberId, member.lastContactMs);
    }
    this.#row = row;
    this.#restored = restored;
    return state;
  }
}
