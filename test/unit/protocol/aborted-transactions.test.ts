/**
 * The aborted index a read carries, when compaction has removed ABORT markers with their
 * transactions' records (issue 28, "compaction drops aborted records and, later, markers"):
 * held to Kafka's own read_committed rule (test/shared/kafka-read-committed.ts), which the
 * gateway's Kafka clients follow.
 */
import { describe, expect, it } from "vitest";
import { withMarkersPresent, type AbortedTransaction } from "../../../src/protocol/aborted-transactions.ts";
import { concatBytes } from "../../../src/protocol/bytes.ts";
import { encodeControlBatch } from "../../../src/protocol/control-batch.ts";
import { batchAt, record } from "../log/fixtures/tier-batches.ts";
import { kafkaReadCommittedOffsets } from "../../shared/kafka-read-committed.ts";

const producer = (producerEpoch: number) => ({ producerId: 7, producerEpoch, baseSequence: 0, transactional: true });

function marker(offset: number, result: "commit" | "abort", producerEpoch: number): Uint8Array {
  const bytes = encodeControlBatch({ producerId: 7, producerEpoch, result, coordinatorEpoch: 0 }, 5);
  new DataView(bytes.buffer, bytes.byteOffset).setBigInt64(0, BigInt(offset));
  return bytes;
}

/** Producer 7 aborts a transaction at 0 (its marker at 1), then commits one at 2 (its marker at 3). */
const abortedData = batchAt(0, [record("k", "aborted", 1)], producer(0)).bytes;
const committedData = batchAt(2, [record("k", "committed", 2)], producer(1)).bytes;
const index: AbortedTransaction[] = [{ producerId: 7, firstOffset: 0, lastOffset: 1 }];

describe("the aborted transactions a read carries", () => {
  it("keeps an entry whose ABORT marker is in the read: Kafka's rule skips the aborted records only", () => {
    const batches = [abortedData, marker(1, "abort", 0), committedData, marker(3, "commit", 1)];
    const carried = withMarkersPresent(index, batches, 4);
    expect(carried).toEqual(index);
    expect(kafkaReadCommittedOffsets(concatBytes(batches), carried)).toEqual([2]);
  });

  it("leaves out an entry whose ABORT marker compaction removed: the producer's later transaction is read", () => {
    const compacted = [committedData, marker(3, "commit", 1)];
    // The index as it stands would hide the committed record from a Kafka client (no marker ends the skip).
    expect(kafkaReadCommittedOffsets(concatBytes(compacted), index)).toEqual([]);
    const carried = withMarkersPresent(index, compacted, 4);
    expect(carried).toEqual([]);
    expect(kafkaReadCommittedOffsets(concatBytes(compacted), carried)).toEqual([2]);
  });

  it("keeps an entry whose marker lies past the read's end: the reader has not reached it yet", () => {
    const open = [abortedData];
    expect(withMarkersPresent(index, open, 1)).toEqual(index);
    expect(kafkaReadCommittedOffsets(concatBytes(open), index)).toEqual([]);
  });

  it("matches a marker by producer as well as offset", () => {
    const other = encodeControlBatch({ producerId: 9, producerEpoch: 0, result: "abort", coordinatorEpoch: 0 }, 5);
    new DataView(other.buffer, other.byteOffset).setBigInt64(0, 1n);
    expect(withMarkersPresent(index, [other, committedData], 3)).toEqual([]);
  });
});
