/**
 * Contact times across coordinator restarts (src/group/member-contacts.ts): the row is written
 * at most once per quarter session per member's contact, and after any number of restarts a
 * member counts as heard from no earlier than its real last contact (never expired early) and
 * at most a quarter session later (the slack), without drifting further at each restart.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConsumerGroup } from "../../../src/group/group.ts";
import type { GroupState } from "../../../src/group/group-state.ts";
import { contactPersistLagMsFor, PersistedContacts } from "../../../src/group/member-contacts.ts";
import { memberContactPersistDivisor, sessionTimeoutMsDefault } from "../../../src/limits.ts";
import { meta, sequentialIds, t0 } from "./group-fixtures.ts";

/** A coordinator as the object runs one: a group, its row, and the contact bookkeeping. */
class Coordinator {
  group: ConsumerGroup;
  contacts = new PersistedContacts();
  row: GroupState;
  rowWrites = 0;
  #revision: number;

  constructor(sessionTimeoutMs: number) {
    this.group = new ConsumerGroup({ generateMemberId: sequentialIds() });
    this.group.join({ topics: ["orders"], sessionTimeoutMs }, meta, t0);
    this.row = this.contacts.toRow(this.group.toState())!;
    this.#revision = this.group.revision;
  }

  /** After a request: the object's #persist. */
  persist(): void {
    if (this.group.revision === this.#revision && !this.contacts.due(this.group.contacts())) return;
    this.row = this.contacts.toRow(this.group.toState())!;
    this.#revision = this.group.revision;
    this.rowWrites += 1;
  }

  restart(nowMs: number): void {
    this.contacts = new PersistedContacts();
    const state = structuredClone(this.row);
    this.contacts.load(state, nowMs);
    this.group = new ConsumerGroup({ generateMemberId: sequentialIds() }, state);
    this.#revision = this.group.revision;
  }

  contactOf(memberId: string): number {
    return [...this.group.contacts()].find((member) => member.memberId === memberId)!.lastContactMs;
  }
}

describe("contact times across restarts", () => {
  it("counts a member as heard from a quarter session after the row's time, but not after the restart", () => {
    const coordinator = new Coordinator(8_000);
    coordinator.restart(t0 + 500);
    expect(coordinator.contactOf("m1")).toBe(t0 + 500);
    coordinator.restart(t0 + 60_000);
    expect(coordinator.contactOf("m1")).toBe(t0 + 8_000 / memberContactPersistDivisor);
  });

  it("does not push a silent member's deadline further at each restart, even when another member's heartbeats write the row", () => {
    const coordinator = new Coordinator(sessionTimeoutMsDefault);
    coordinator.group.join({ topics: ["orders"], sessionTimeoutMs: sessionTimeoutMsDefault }, meta, t0);
    coordinator.persist();
    const deadline = t0 + sessionTimeoutMsDefault + contactPersistLagMsFor(sessionTimeoutMsDefault);
    const writesBefore = coordinator.rowWrites;
    for (let at = t0 + 5_000; at < deadline; at += 5_000) {
      if (at % 20_000 === 0) coordinator.restart(at);
      expect(coordinator.group.expire(at)).toEqual([]);
      coordinator.group.heartbeat("m2", { memberEpoch: coordinator.group.member("m2")!.memberEpoch }, meta, at);
      coordinator.persist();
      expect(coordinator.contactOf("m1")).toBeLessThanOrEqual(t0 + contactPersistLagMsFor(sessionTimeoutMsDefault));
    }
    expect(coordinator.rowWrites).toBeGreaterThan(writesBefore); // m2's contact times were written meanwhile
    coordinator.restart(deadline);
    expect(coordinator.group.expire(deadline)).toEqual(["m1"]);
  });

  it("shows as the last heartbeat after a restart the one the row holds, never the restored guess, until the member is heard from", () => {
    const coordinator = new Coordinator(sessionTimeoutMsDefault);
    coordinator.group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 4_000); // not written: under a quarter session
    coordinator.persist();
    coordinator.restart(t0 + 30_000);
    expect(coordinator.contactOf("m1")).toBe(t0 + 11_250);
    expect(coordinator.contacts.describe(coordinator.group.describe()).members[0]!.lastHeartbeatAt).toBe(t0);
    coordinator.group.heartbeat("m1", { memberEpoch: 1 }, meta, t0 + 31_000);
    expect(coordinator.contacts.describe(coordinator.group.describe()).members[0]!.lastHeartbeatAt).toBe(t0 + 31_000);
  });

  it("writes the row for contact times alone about once per quarter session, not per heartbeat", () => {
    const coordinator = new Coordinator(sessionTimeoutMsDefault);
    const writesBefore = coordinator.rowWrites;
    for (let at = t0 + 1_000; at <= t0 + 90_000; at += 1_000) {
      coordinator.group.heartbeat("m1", { memberEpoch: 1 }, meta, at);
      coordinator.persist();
    }
    // The lag is 11.25 s: every 12th heartbeat (the first 11.25 s or more past the row's) writes.
    expect(contactPersistLagMsFor(sessionTimeoutMsDefault)).toBe(11_250);
    expect(coordinator.rowWrites - writesBefore).toBe(Math.floor(90_000 / 12_000));
  });

  it("keeps restored contact times between the real last contact and a quarter session after it, whatever the order of heartbeats and restarts", () => {
    const step = fc.record({ kind: fc.constantFrom("heartbeat", "restart", "idle"), advanceMs: fc.integer({ min: 0, max: 4_000 }) });
    fc.assert(
      fc.property(fc.integer({ min: 6_000, max: 60_000 }), fc.array(step, { maxLength: 60 }), (sessionTimeoutMs, steps) => {
        const coordinator = new Coordinator(sessionTimeoutMs);
        let nowMs = t0;
        let realContactMs = t0;
        for (const { kind, advanceMs } of steps) {
          nowMs += advanceMs;
          if (nowMs >= realContactMs + sessionTimeoutMs) return; // the member would be gone: a different story
          if (kind === "heartbeat") {
            coordinator.group.heartbeat("m1", { memberEpoch: 1 }, meta, nowMs);
            coordinator.persist();
            realContactMs = nowMs;
          } else if (kind === "restart") {
            coordinator.restart(nowMs);
          } else {
            coordinator.persist(); // an alarm's turn: nothing changed
          }
          const believed = coordinator.contactOf("m1");
          expect(believed).toBeGreaterThanOrEqual(realContactMs);
          expect(believed).toBeLessThanOrEqual(realContactMs + contactPersistLagMsFor(sessionTimeoutMs));
        }
      }),
      { seed: 12, numRuns: 500 },
    );
  });
});
