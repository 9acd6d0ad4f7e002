/**
 * Where the client's keyless records go (no key, no partition): Kafka's sticky partitioner
 * (KIP-480) with KIP-794's rule for when to move on. Records stick to one partition until
 * about `switchBytes` (Kafka's `batch.size`, 16 KiB by default) have gone to it, then switch
 * to another partition drawn at random, so a stream of keyless records fills batches on one
 * partition at a time yet spreads evenly over all of them:
 *
 *   records:    ≈16 KiB  ≈16 KiB  ≈16 KiB  ≈16 KiB …
 *   partition:     2        0        1        0    …   (each draw: any partition but the last)
 *
 * How many bytes one request carries (the producer's `batchBytes`, up to 1 MiB) is a separate
 * matter: a partition's queue still gathers the chunks that land on it into large requests.
 * Pure: the random source is a parameter.
 */
import { stickyPartition } from "../protocol/partitioner.ts";

/** Kafka's batch.size default: the bytes of keyless records one partition takes before the next is chosen. */
export const stickyPartitionBytesDefault = 16 * 1024;

export class StickyPartitioner {
  readonly #switchBytes: number;
  readonly #random: () => number;
  #partition: number | undefined;
  #bytes = 0;

  constructor(switchBytes: number = stickyPartitionBytesDefault, random: () => number = Math.random) {
    if (!Number.isSafeInteger(switchBytes) || switchBytes < 1) throw new RangeError(`switchBytes must be a positive integer, got ${switchBytes}`);
    this.#switchBytes = switchBytes;
    this.#random = random;
  }

  /** The partition of the next keyless record, which takes `recordBytes` of it. */
  next(partitionCount: number, recordBytes: number): number {
    const current = this.#partition;
    if (current === undefined || current >= partitionCount || this.#bytes >= this.#switchBytes) {
      this.#partition = this.#draw(current, partitionCount);
      this.#bytes = 0;
    }
    this.#bytes += recordBytes;
    return this.#partition!;
  }

  /** Any partition but the current one (when there is another): consecutive chunks never share one. */
  #draw(current: number | undefined, partitionCount: number): number {
    if (current === undefined || current >= partitionCount || partitionCount === 1) return stickyPartition(partitionCount, this.#random);
    return (current + 1 + stickyPartition(partitionCount - 1, this.#random)) % partitionCount;
  }
}
