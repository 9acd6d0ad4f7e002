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

/** Refuses a fault request (and the faults routes) unless the deployment allows fault injection. */
export function checkFaultsEnabled(env: { TRIBUTARY_FAULTS?: string }): void {
  if (env.TRIBUTARY_FAULTS !== "1") throw new TributaryError("NOT_FOUND", "fault injection is not enabled on this deployment");
}
