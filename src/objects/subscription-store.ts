import { subscriptionErrorLengthMax } from "../limits.ts";
import type { Isolation } from "../protocol/schemas.ts";
import type { CreateSubscription, SubscriptionAnswer } from "../protocol/subscription-schemas.ts";
import type { PartitionCursor } from "../subscriptions/delivery-plan.ts";

/**
 * A Subscription object's SQLite (src/objects/subscription.ts): its settings (one row, JSON),
 * one cursor per partition (position and the batch in flight), and its counters. A delivery
 * writes its cursor before it starts (so a restart redelivers the same offsets) and its
 * cursor and counters together once settled: two rows per batch.
 */
export const subscriptionMigrations = [
  `CREATE TABLE subscription (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    settings TEXT NOT NULL,
    topic_id TEXT NOT NULL
  );
  CREATE TABLE cursors (
    partition INTEGER PRIMARY KEY,
    position INTEGER NOT NULL,
    in_flight TEXT
  );
  CREATE TABLE counters (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    delivered INTEGER NOT NULL,
    retried INTEGER NOT NULL,
    dead_lettered INTEGER NOT NULL,
    last_error TEXT,
    last_error_at INTEGER
  );
  CREATE TABLE listing (
    name TEXT PRIMARY KEY,
    settings TEXT NOT NULL
  )`,
];

/** A subscription's settings as stored: the request with its defaults, the secret included. */
export interface SubscriptionSettings extends Omit<CreateSubscription, "deadLetterTopic" | "isolation"> {
  deadLetterTopic: string | null;
  /** Absent in a subscription created before it: read_committed (isolationOf). */
  isolation?: Isolation;
  paused: boolean;
  createdAt: number;
}

export interface SubscriptionCounters {
  delivered: number;
  retried: number;
  deadLettered: number;
  lastError: string | null;
  lastErrorAt: number | null;
}

/** Settings as answered: a webhook's secret is never sent back. */
export function publicSettings(settings: SubscriptionSettings): SubscriptionAnswer {
  const target = "url" in settings.target ? { url: settings.target.url, ...(settings.target.secret ? { secret: "<redacted>" as const } : {}) } : { service: settings.target.service };
  return { ...settings, isolation: isolationOf(settings), target };
}

/** The subscription's isolation level: read_committed unless it asked otherwise. */
export function isolationOf(settings: Pick<SubscriptionSettings, "isolation">): Isolation {
  return settings.isolation ?? "read_committed";
}

export class SubscriptionStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  read(): { settings: SubscriptionSettings; topicId: string } | undefined {
    const row = this.#sql.exec<{ settings: string; topic_id: string }>("SELECT settings, topic_id FROM subscription WHERE id = 1").toArray()[0];
    return row ? { settings: JSON.parse(row.settings) as SubscriptionSettings, topicId: row.topic_id } : undefined;
  }

  create(settings: SubscriptionSettings, topicId: string, cursors: readonly PartitionCursor[]): void {
    this.#sql.exec("INSERT INTO subscription (id, settings, topic_id) VALUES (1, ?, ?)", JSON.stringify(settings), topicId);
    this.#sql.exec("INSERT INTO counters (id, delivered, retried, dead_lettered) VALUES (1, 0, 0, 0)");
    for (const cursor of cursors) this.writeCursor(cursor);
  }

  writeSettings(settings: SubscriptionSettings): void {
    this.#sql.exec("UPDATE subscription SET settings = ? WHERE id = 1", JSON.stringify(settings));
  }

  cursors(): PartitionCursor[] {
    return this.#sql
      .exec<{ partition: number; position: number; in_flight: string | null }>("SELECT partition, position, in_flight FROM cursors ORDER BY partition")
      .toArray()
      .map((row) => ({ partition: row.partition, position: row.position, inFlight: row.in_flight === null ? null : (JSON.parse(row.in_flight) as PartitionCursor["inFlight"]) }));
  }

  writeCursor(cursor: PartitionCursor): void {
    this.#sql.exec(
      "INSERT INTO cursors (partition, position, in_flight) VALUES (?, ?, ?) ON CONFLICT (partition) DO UPDATE SET position = excluded.position, in_flight = excluded.in_flight",
      cursor.partition,
      cursor.position,
      cursor.inFlight === null ? null : JSON.stringify(cursor.inFlight),
    );
  }

  counters(): SubscriptionCounters {
    const row = this.#sql
      .exec<{ delivered: number; retried: number; dead_lettered: number; last_error: string | null; last_error_at: number | null }>(
        "SELECT delivered, retried, dead_lettered, last_error, last_error_at FROM counters WHERE id = 1",
      )
      .toArray()[0];
    return { delivered: row?.delivered ?? 0, retried: row?.retried ?? 0, deadLettered: row?.dead_lettered ?? 0, lastError: row?.last_error ?? null, lastErrorAt: row?.last_error_at ?? null };
  }

  /** Adds to the counters; an error, when given, becomes `lastError`. */
  count(added: { delivered?: number; retried?: number; deadLettered?: number }, error?: { message: string; atMs: number }): void {
    this.#sql.exec(
      "UPDATE counters SET delivered = delivered + ?, retried = retried + ?, dead_lettered = dead_lettered + ? WHERE id = 1",
      added.delivered ?? 0,
      added.retried ?? 0,
      added.deadLettered ?? 0,
    );
    if (error) this.#sql.exec("UPDATE counters SET last_error = ?, last_error_at = ? WHERE id = 1", error.message.slice(0, subscriptionErrorLengthMax), error.atMs);
  }

  // ---- The listing (only in the index object, src/contracts/stubs.ts subscriptionIndexName) ----

  listing(): SubscriptionAnswer[] {
    return this.#sql.exec<{ settings: string }>("SELECT settings FROM listing ORDER BY name").toArray().map((row) => JSON.parse(row.settings) as SubscriptionAnswer);
  }

  listed(): number {
    return this.#sql.exec<{ count: number }>("SELECT COUNT(*) AS count FROM listing").one().count;
  }

  list(answer: SubscriptionAnswer): void {
    this.#sql.exec("INSERT INTO listing (name, settings) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET settings = excluded.settings", answer.name, JSON.stringify(answer));
  }

  unlist(name: string): void {
    this.#sql.exec("DELETE FROM listing WHERE name = ?", name);
  }
}
