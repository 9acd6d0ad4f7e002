/**
 * For the gateway's group tests: numbered records on every partition, and a ledger of what
 * each consumer processed, to check that every record was processed, and how often.
 */
import { expect } from "vitest";
import type { Tributary } from "../../../src/client/index.ts";

/** Writes `perPartition` records to every partition, values "p<partition>-<n>" from `from`. */
export async function produceNumbered(tributary: Tributary, topic: string, partitions: number, perPartition: number, from = 0): Promise<void> {
  const messages = [];
  for (let partition = 0; partition < partitions; partition++) {
    for (let n = from; n < from + perPartition; n++) messages.push({ partition, value: `p${partition}-${n}` });
  }
  await tributary.topic(topic).produce(messages);
}

export class Ledger {
  /** "partition:offset" → who processed it, in order. */
  readonly #seen = new Map<string, string[]>();

  record(consumer: string, partition: number, offset: number | bigint | string): void {
    const key = `${partition}:${String(offset)}`;
    this.#seen.set(key, [...(this.#seen.get(key) ?? []), consumer]);
  }

  get distinct(): number {
    return this.#seen.size;
  }

  get duplicates(): { record: string; by: string[] }[] {
    return [...this.#seen].filter(([, by]) => by.length > 1).map(([record, by]) => ({ record, by }));
  }

  /** Who processed the record at `offset` of `partition`, in order. */
  processedBy(partition: number, offset: number | bigint | string): string[] {
    return this.#seen.get(`${partition}:${String(offset)}`) ?? [];
  }

  consumers(): Set<string> {
    return new Set([...this.#seen.values()].flat());
  }

  /** Waits until `count` distinct records were processed; fails after `timeoutMs` with what is missing. */
  async waitFor(count: number, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.distinct < count) {
      expect(Date.now(), `${what}: ${this.distinct} of ${count} records processed`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    expect(Date.now(), what).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The group scenario on a fresh six-partition topic: 600 records; one member, then a
 * second, then a third join while they are processed; 300 more; the second leaves; 300 more.
 * Then every record was processed exactly once (no member died) — or, `atLeastOnce`, at least
 * once, for a client whose commits Kafka's classic protocol may take after a rebalance — by all
 * three, and the group's committed offsets reach the end of every partition.
 */
export async function threeMembersComeAndGo(
  tributary: Tributary,
  names: readonly [string, string, string],
  start: (name: string, topic: string, ledger: Ledger) => Promise<{ leave(): Promise<void> }>,
  topic: string,
  groupId: string,
  options: { atLeastOnce?: boolean } = {},
): Promise<void> {
  const [first, second, third] = names;
  await tributary.admin().topics.create({ name: topic, partitions: 6 });
  await produceNumbered(tributary, topic, 6, 100);
  const ledger = new Ledger();
  await start(first, topic, ledger);
  await ledger.waitFor(100, 30_000, `${first} alone`);
  const leaving = await start(second, topic, ledger);
  await ledger.waitFor(250, 30_000, `${first} and ${second}`);
  await start(third, topic, ledger);
  await ledger.waitFor(600, 30_000, "the first 600");
  await produceNumbered(tributary, topic, 6, 50, 100);
  await ledger.waitFor(900, 30_000, "all three");
  await leaving.leave();
  await produceNumbered(tributary, topic, 6, 50, 150);
  await ledger.waitFor(1_200, 30_000, `${first} and ${third} after ${second} left`);
  if (options.atLeastOnce !== true) expect(ledger.duplicates).toEqual([]);
  expect(ledger.consumers()).toEqual(new Set(names));
  const atTheEnd = async () => (await tributary.admin().groups.offsets(groupId)).every(({ offset }) => offset === 200);
  await waitUntil(atTheEnd, 20_000, "every offset committed to the end");
  expect(await tributary.admin().groups.offsets(groupId)).toEqual(
    [0, 1, 2, 3, 4, 5].map((partition) => ({ topic, partition, offset: 200, metadata: "", highWatermark: 200, lag: 0 })),
  );
}
