import { TributaryError } from "../errors.ts";
import { partitionWakeupsMax } from "../limits.ts";
import { subscriptionStub } from "../contracts/stubs.ts";

/**
 * Subscriptions a partition's leader wakes when it commits records (docs/api.md,
 * Subscriptions: idle costs nothing). A subscription that has delivered everything below the
 * high watermark registers here with its position (`watch`); the next commit past it sends
 * one `wake` and disarms the registration until the subscription, caught up again, watches
 * again — so a busy partition sends no wake at all while its subscriptions are reading, and
 * an idle one sends none.
 *
 * Registrations are rows in the replica's SQLite, so a restarted leader still wakes its
 * subscriptions: after a restart every row is armed again (at worst one spurious wake each).
 * Followers keep them too (src/objects/subscription-io.ts registers with the ISR), and wake
 * nobody until elected leader.
 * A wake that fails stays armed for the next commit; a subscription that answers it no longer
 * watches (deleted) is forgotten.
 */
/** The replica's migration 8 (IF NOT EXISTS: a replica of a build that made the table outside the numbered migrations has it already). */
export const partitionWakeupsMigration = `CREATE TABLE IF NOT EXISTS partition_wakeups (
  subscription TEXT PRIMARY KEY,
  position INTEGER NOT NULL
)`;

export interface WakeRequest {
  topicId: string;
  partition: number;
  highWatermark: number;
}

export class PartitionWakeups {
  readonly #sql: SqlStorage;
  readonly #env: Env;
  /** Armed registrations: subscription → the position it waits past. */
  readonly #armed = new Map<string, number>();
  #rows = 0;

  constructor(sql: SqlStorage, env: Env) {
    this.#sql = sql;
    this.#env = env;
    for (const row of sql.exec<{ subscription: string; position: number }>("SELECT subscription, position FROM partition_wakeups")) {
      this.#armed.set(row.subscription, row.position);
      this.#rows++;
    }
  }

  /** Registers (or moves) a subscription's wait past `position`; bounded by partitionWakeupsMax rows. */
  watch(subscription: string, position: number): void {
    const known = this.#sql.exec<{ position: number }>("SELECT position FROM partition_wakeups WHERE subscription = ?", subscription).toArray()[0];
    if (!known && this.#rows >= partitionWakeupsMax) {
      throw new TributaryError("BROKER_BUSY", `this partition wakes ${partitionWakeupsMax} subscriptions already`);
    }
    if (known?.position !== position) {
      this.#sql.exec("INSERT INTO partition_wakeups (subscription, position) VALUES (?, ?) ON CONFLICT (subscription) DO UPDATE SET position = excluded.position", subscription, position);
      if (!known) this.#rows++;
    }
    this.#armed.set(subscription, position);
  }

  unwatch(subscription: string): void {
    this.#armed.delete(subscription);
    if (this.#sql.exec("DELETE FROM partition_wakeups WHERE subscription = ?", subscription).rowsWritten > 0) this.#rows--;
  }

  /** The leader committed records up to `highWatermark`: wakes each armed subscription it passed. */
  notify(topicId: string, partition: number, highWatermark: number): void {
    if (this.#armed.size === 0) return;
    for (const [subscription, position] of this.#armed) {
      if (highWatermark <= position) continue;
      this.#armed.delete(subscription);
      void this.#wake(subscription, position, { topicId, partition, highWatermark });
    }
  }

  async #wake(subscription: string, position: number, request: WakeRequest): Promise<void> {
    try {
      const answer = await subscriptionStub(this.#env, subscription).wake(request);
      if (answer.ok && !answer.value.watching) this.unwatch(subscription);
      else if (!answer.ok && !this.#armed.has(subscription)) this.#armed.set(subscription, position);
    } catch {
      // Not reached (a restart, an overloaded object): armed again, the next commit retries.
      if (!this.#armed.has(subscription)) this.#armed.set(subscription, position);
    }
  }
}
