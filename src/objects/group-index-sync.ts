import { unwrap } from "../errors.ts";
import type { Controller, GroupIndexEntry } from "./controller.ts";

/** A group as the controller's index lists it, less its name. */
export type IndexSummary = Omit<GroupIndexEntry, "group">;

/** Retry delay for a group index update the controller did not take. */
const indexRetryMs = 1_000;

/**
 * Keeps the controller's group index (ARCHITECTURE.md decision 7) in line with one group:
 * one update at a time, each with the group as it is when the update starts, and only when
 * what the index holds differs. Awaited by the request that changed the group; a failure is
 * not that request's failure (the index only serves listings and topic deletion) but sets
 * `retryAtMs`, for the coordinator's alarm to try again until the index has taken it.
 */
export class GroupIndexSync {
  /** What the index last acknowledged; null when it does not list the group. Persisted by the owner. */
  acknowledged: IndexSummary | null;
  retryAtMs: number | null = null;
  readonly #controller: () => DurableObjectStub<Controller>;
  readonly #onAcknowledged: () => void;
  #chain: Promise<void> = Promise.resolve();

  constructor(controller: () => DurableObjectStub<Controller>, acknowledged: IndexSummary | null, onAcknowledged: () => void) {
    this.#controller = controller;
    this.acknowledged = acknowledged;
    this.#onAcknowledged = onAcknowledged;
  }

  /** Brings the index to `desired()` (null: not listed) for the group `name`. */
  async sync(name: string | undefined, desired: () => IndexSummary | null): Promise<void> {
    const run = this.#chain.then(() => this.#syncOnce(name, desired()));
    this.#chain = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
      this.retryAtMs = null;
    } catch (error) {
      console.error("could not update the group index", error);
      this.retryAtMs = Date.now() + indexRetryMs;
    }
  }

  inSync(desired: IndexSummary | null): boolean {
    return sameSummary(desired, this.acknowledged);
  }

  async #syncOnce(name: string | undefined, desired: IndexSummary | null): Promise<void> {
    if (name === undefined || this.inSync(desired)) return;
    const controller = this.#controller();
    if (desired === null) unwrap(await controller.unindexGroup(name));
    else unwrap(await controller.indexGroup({ group: name, ...desired }));
    this.acknowledged = desired;
    this.#onAcknowledged();
  }
}

function sameSummary(a: IndexSummary | null, b: IndexSummary | null): boolean {
  if (a === null || b === null) return a === b;
  return a.state === b.state && a.members === b.members;
}
