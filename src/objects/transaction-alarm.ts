import { unwrap, type Result } from "../errors.ts";
import { transactionFollowerGraceMs, transactionMarkerRetryMsMin } from "../limits.ts";
import type { TransactionAnchor, TransactionKey } from "../contracts/transaction-coordinator-api.ts";
import { coordinatorCalls, transactionKey } from "../data-plane/coordinator-calls.ts";
import { topicMetadata } from "../data-plane/metadata-cache.ts";
import { nextAlarmAt } from "../transactions/transaction-machine.ts";
import type { TransactionMetadata } from "../transactions/transaction-metadata.ts";

/** The index's retry of a listing it did not take, and of the alarm that found nothing to do. */
export const indexRetryMs = 1_000;

/** What a coordinator replica's alarm depends on (src/objects/transaction-coordinator.ts). */
export interface CoordinatorAlarmState {
  metadata: TransactionMetadata | null;
  handedOver: boolean;
  /** A replicated replica that does not lead now. */
  follower: boolean;
  indexSynced: boolean;
  /** The metadata in memory is newer than its row: a completion not written yet (the end answered first). */
  unsaved: boolean;
}

/**
 * When a coordinator replica's alarm must fire (null: none, an idle object costs nothing): the
 * leader's when work is due (nextAlarmAt); a follower's a grace past the leader's deadline, and
 * never sooner than a grace from now (it polls no faster); the index's retry while a listing is
 * not taken; and soon while a completion waits to be written, so its row never stays behind.
 */
export function coordinatorAlarmAt(state: CoordinatorAlarmState, now: number): number | null {
  const { metadata, handedOver, follower, indexSynced, unsaved } = state;
  const due = metadata === null || handedOver ? null : nextAlarmAt(metadata, now);
  const at = due === null || !follower ? due : Math.max(due, now) + transactionFollowerGraceMs;
  const indexed = indexSynced || follower ? at : Math.min(at ?? Infinity, now + indexRetryMs);
  return unsaved && !handedOver && !follower ? Math.min(indexed ?? Infinity, now + transactionMarkerRetryMsMin) : indexed;
}

/**
 * A replicated replica's alarm: whoever leads the anchor now acts — this replica (`tickHere`
 * at the placement) or the leader, through the coordinator calls (a silent one is reported and
 * replaced). False when the leader could not be reached: the caller tries again later.
 */
export async function tickAtLeader(env: Env, anchor: TransactionAnchor, transactionalId: string, tickHere: (key: TransactionKey) => Promise<Result<void>>): Promise<boolean> {
  try {
    const placement = transactionKey(await topicMetadata(env, anchor.topic, { refresh: true }), anchor.partition);
    if (placement.region === anchor.region) unwrap(await tickHere(placement));
    else await coordinatorCalls(env, anchor.topic).tick(transactionalId);
    return true;
  } catch (error) {
    console.warn("a transaction coordinator's alarm could not reach its leader; it tries again", error);
    return false;
  }
}
