/**
 * The share consumer's acknowledgement bookkeeping, kept apart from its loop so each rule has
 * a test of its own:
 *
 *   fetch ──► hold(lease, records) ──► acknowledge(record, type) ──► pending
 *                                                                      │ take()
 *          results per partition ◄── next fetch's body (ride along) ◄──┘  or /acknowledge (flush)
 *
 * A record is held from its fetch until its acknowledgement is taken to be sent; it is
 * acknowledged at most once. What the server refuses with INVALID_RECORD_STATE (the lease
 * expired, so the records are available again, or were already acknowledged by a request
 * whose answer was lost) is logged, never thrown: the server delivers those records again.
 * Held records whose lease expired unacknowledged are dropped by `dropExpired`.
 */
import type { ClientLog } from "./logger.ts";
import type { AcknowledgeType, ShareAcknowledgement, ShareAcknowledgementResult, ShareMessage } from "./share-types.ts";

/**
 * Thrown by a share consumer's handler: the record is rejected (never delivered again; archived,
 * or first produced to the group's `dead.letter.topic`) rather than released for redelivery.
 */
export class RejectRecord extends Error {
  override readonly name = "RejectRecord";
}

/** A partition's acknowledgements under one lease, as a fetch's body or `/acknowledge` carries them. */
export interface LeasedAcknowledgement extends ShareAcknowledgement {
  lease: string;
}

/** The error a share-group route answers for acknowledgements it refuses (docs/api.md). */
export const invalidRecordState = "INVALID_RECORD_STATE";

interface Held {
  lease: string;
  leaseExpiresAt: number;
  acknowledged: AcknowledgeType | undefined;
}

interface PendingAck {
  lease: string;
  topic: string;
  partition: number;
  offset: number;
  type: AcknowledgeType;
}

type RecordId = Pick<ShareMessage, "topic" | "partition" | "offset">;

const keyOf = ({ topic, partition, offset }: RecordId) => `${topic}\u0000${partition}\u0000${offset}`;

export class ShareAcks {
  readonly #log: ClientLog;
  readonly #held = new Map<string, Held>();
  #pending: PendingAck[] = [];
  /** Acknowledgements sent by a request whose fate is unknown (cut short by stop): a refusal then means nothing. */
  #uncertain = new Set<string>();
  #onAcknowledge: (() => void) | undefined;

  constructor(log: ClientLog) {
    this.#log = log;
  }

  /** The records of one fetch, held under its lease until acknowledged. */
  hold(lease: string, leaseExpiresAt: number, records: RecordId[]): void {
    for (const record of records) this.#held.set(keyOf(record), { lease, leaseExpiresAt, acknowledged: undefined });
  }

  isAcknowledged(record: RecordId): boolean {
    return this.#held.get(keyOf(record))?.acknowledged !== undefined;
  }

  /** Queues the record's acknowledgement for the next request; a record is acknowledged once. */
  acknowledge(record: RecordId, type: AcknowledgeType): void {
    if (type !== "accept" && type !== "release" && type !== "reject") throw new TypeError(`acknowledge: type is accept, release or reject, got ${String(type)}`);
    const held = record === null || typeof record !== "object" ? undefined : this.#held.get(keyOf(record));
    if (held === undefined) throw new Error(`acknowledge: ${describe(record)} is not held by this consumer (never fetched by it, or its lease expired)`);
    if (held.acknowledged !== undefined) throw new Error(`acknowledge: ${describe(record)} was already acknowledged (${held.acknowledged})`);
    held.acknowledged = type;
    this.#pending.push({ lease: held.lease, topic: record.topic, partition: record.partition, offset: record.offset, type });
    this.#onAcknowledge?.();
  }

  /** Held records not acknowledged yet. */
  get unacknowledged(): number {
    let count = 0;
    for (const held of this.#held.values()) if (held.acknowledged === undefined) count++;
    return count;
  }

  /** Acknowledgements queued and not yet taken. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Releases every held record not acknowledged (a consumer stopping: they go to the others at once). */
  releaseUnacknowledged(): number {
    let released = 0;
    for (const [key, held] of this.#held) {
      if (held.acknowledged !== undefined) continue;
      const [topic, partition, offset] = key.split("\u0000");
      this.acknowledge({ topic: topic!, partition: Number(partition), offset: Number(offset) }, "release");
      released++;
    }
    return released;
  }

  /** Forgets held records whose lease expired unacknowledged: the server has released them. Answers how many. */
  dropExpired(nowMs: number): number {
    let dropped = 0;
    for (const [key, held] of this.#held) {
      if (held.acknowledged !== undefined || held.leaseExpiresAt > nowMs) continue;
      this.#held.delete(key);
      dropped++;
    }
    if (dropped > 0) this.#log.log("warn", `the lease of ${dropped} record(s) expired before they were acknowledged; the server delivers them again`, { records: dropped });
    return dropped;
  }

  /** The earliest lease expiry of a held record not acknowledged, or undefined. */
  nextExpiry(): number | undefined {
    let earliest: number | undefined;
    for (const held of this.#held.values()) {
      if (held.acknowledged === undefined && (earliest === undefined || held.leaseExpiresAt < earliest)) earliest = held.leaseExpiresAt;
    }
    return earliest;
  }

  /** Resolves at the next acknowledgement. One waiter at a time: the consumer's loop. */
  nextAcknowledgement(): Promise<void> {
    return new Promise((resolve) => {
      this.#onAcknowledge = () => {
        this.#onAcknowledge = undefined;
        resolve();
      };
    });
  }

  /** The queued acknowledgements, grouped per lease, partition and type, in the order they came; the records are no longer held. */
  take(): LeasedAcknowledgement[] {
    const groups = new Map<string, LeasedAcknowledgement>();
    for (const ack of this.#pending) {
      const group = `${ack.lease}\u0000${ack.topic}\u0000${ack.partition}\u0000${ack.type}`;
      let entry = groups.get(group);
      if (entry === undefined) {
        entry = { lease: ack.lease, topic: ack.topic, partition: ack.partition, offsets: [], type: ack.type };
        groups.set(group, entry);
      }
      entry.offsets.push(ack.offset);
      this.#held.delete(keyOf(ack));
    }
    this.#pending = [];
    return [...groups.values()];
  }

  /** Acknowledgements whose request was cut short: sent again by the final flush, where a refusal is expected. */
  restore(acks: LeasedAcknowledgement[]): void {
    for (const ack of acks) {
      this.#uncertain.add(`${ack.topic}\u0000${ack.partition}`);
      for (const offset of ack.offsets) this.#pending.push({ lease: ack.lease, topic: ack.topic, partition: ack.partition, offset, type: ack.type });
    }
  }

  /**
   * Reads the per-partition results of sent acknowledgements: INVALID_RECORD_STATE is logged (the
   * records come again), any other refusal is logged as a warning too; nothing throws, since a
   * refused acknowledgement changed nothing and the server redelivers those records.
   */
  settle(sent: LeasedAcknowledgement[], results: ShareAcknowledgementResult[] | undefined): void {
    for (const result of results ?? []) {
      if (result.error === undefined) continue;
      const records = sent.filter((ack) => ack.topic === result.topic && ack.partition === result.partition).reduce((sum, ack) => sum + ack.offsets.length, 0);
      this.refused(result.topic, result.partition, records, result.error);
    }
  }

  /** One line for acknowledgements of a partition the server refused. */
  refused(topic: string, partition: number, records: number, error: { code?: unknown; message: string }): void {
    const where = `${topic}/${partition}`;
    if (error.code === invalidRecordState && this.#uncertain.has(`${topic}\u0000${partition}`)) {
      this.#log.log("info", `acknowledgements of ${records} record(s) of ${where} were refused (${error.message}): a request cut short had applied them, or their lease expired`, { topic, partition, records });
      return;
    }
    const why = error.code === invalidRecordState ? "their lease expired or they are no longer held; the server delivers them again" : "the server delivers them again";
    this.#log.log("warn", `acknowledgements of ${records} record(s) of ${where} were refused: ${String(error.code)}: ${error.message} (${why})`, {
      topic,
      partition,
      records,
      code: error.code,
    });
  }
}

function describe(record: unknown): string {
  if (record === null || typeof record !== "object") return String(record);
  const { topic, partition, offset } = record as Partial<RecordId>;
  return `${String(topic)}/${String(partition)}@${String(offset)}`;
}
