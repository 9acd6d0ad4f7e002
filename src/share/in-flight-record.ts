/*
 * One offset of a share-partition's in-flight window (share-partition.ts), as the window holds it
 * and as its stored form (share-partition-persisted.ts) writes it in runs: a file of its own, so
 * that neither of the two imports the other's shapes.
 */

export type RecordState = "available" | "acquired" | "acknowledged" | "archived" | "dead-lettering";
export type ArchiveReason = "rejected" | "delivery-limit";

/** One offset of the window. */
export interface InFlightRecord {
  state: RecordState;
  deliveryCount: number;
  /** The lease holding the lock (acquired only). */
  lease: string | null;
  /** Acquired: when the lock expires. Dead-lettering: until when a router's claim holds (null: unclaimed). */
  untilMs: number | null;
  /** Why it is (being) archived. */
  reason: ArchiveReason | null;
}
