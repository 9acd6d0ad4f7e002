import { TributaryError } from "../errors.ts";
import type { FaultRequest } from "../protocol/schemas.ts";

/**
 * Fault injection (API.md, "Fault injection"): a documented feature for local resilience
 * drills and tests, enabled only when the Worker variable TRIBUTARY_FAULTS is "1".
 * - down: the replica answers nothing, as if unreachable (every call fails at once);
 * - slow: it answers `ms` later;
 * - crash-after-write: its next append is stored, then its reply is lost;
 * - none: back to normal.
 */
export type Fault = FaultRequest["fault"];

/** What a caller sees from a replica that is down: a failed call, not an error value. */
export class ReplicaUnreachable extends Error {
  override readonly name = "ReplicaUnreachable";
}

export class ReplicaFaults {
  #fault: Fault = "none";
  #slowMs = 0;

  set(fault: Fault, ms: number): void {
    this.#fault = fault;
    this.#slowMs = fault === "slow" ? ms : 0;
  }

  get current(): Fault {
    return this.#fault;
  }

  /** Before answering any call: fail it when down, delay it when slow. */
  async beforeCall(): Promise<void> {
    if (this.#fault === "down") throw new ReplicaUnreachable("replica is down (fault injection)");
    if (this.#fault === "slow" && this.#slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#slowMs));
  }

  /** After an append is stored: a crash-after-write fault loses the reply, once. */
  afterWrite(): void {
    if (this.#fault !== "crash-after-write") return;
    this.#fault = "none";
    throw new ReplicaUnreachable("replica crashed after writing (fault injection)");
  }
}

export function checkFaultsEnabled(env: { TRIBUTARY_FAULTS?: string }): void {
  if (env.TRIBUTARY_FAULTS !== "1") throw new TributaryError("NOT_FOUND", "fault injection is not enabled on this deployment");
}
