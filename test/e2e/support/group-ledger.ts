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
