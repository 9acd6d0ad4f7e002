/**
 * One partition's writes for a run of a connection's Produce requests
 * (src/gateway/handlers/produce-writes.ts), against a real partition log (the pure core, in
 * memory) standing for Tributary's binary produce: requests whose batches the partition takes
 * as one append go in one write, in request order, and each gets its own offsets; requests
 * that do not continue each other (another producer, a gap, idempotent after not) or that
 * would pass the request size bound are written apart; a write refused for what it held is
 * sent again request by request, each getting its own answer (a retry of written records its
 * original offsets); any other failure is every request's answer, after one write.
 */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { outlineOf, writeGroups, writeParts, type PartitionPart, type PartitionPost } from "../../../src/gateway/handlers/produce-writes.ts";
import { produceRequestBytesMax } from "../../../src/limits.ts";
import { MemoryLogStore } from "../../../src/log/memory-log-store.ts";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { encodeRecordBatch, splitBatches } from "../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A request's batch for the partition: `values` records, an idempotent producer's when `producer` is given. */
function part(values: string[], producer?: { id: number; epoch?: number; sequence: number }): PartitionPart {
  const records = encodeRecordBatch(
    values.map((value) => ({ key: null, value: utf8.encode(value), headers: [], timestamp: 1_000 })),
    producer ? { producerId: producer.id, producerEpoch: producer.epoch ?? 0, baseSequence: producer.sequence } : {},
  );
  return { records, outline: outlineOf(records) };
}

/** A partition behind the writes: each POST's batches appended atomically, as the binary produce route does. */
function partition() {
  const log = new PartitionLog(new MemoryLogStore());
  const posts: number[] = [];
  const post: PartitionPost = async (records) => {
    const batches = [...splitBatches(records)].map(({ start, end }) => records.slice(start, end));
    posts.push(batches.length);
    const { baseOffset } = log.append(batches, 0, { commit: true, nowMs: 1_000 });
    return { baseOffset, timestamp: -1 };
  };
  const values = () => log.read(0, { maxRecords: 1_000, maxBytes: 1 << 20 }).batches.flatMap((batch) => decodeRecordBatch(batch).records.map((record) => text.decode(record.value!)));
  return { post, posts, values };
}

describe("a run of Produce requests' writes to one partition", () => {
  it("puts requests without a producer id in one write, each answered with its own offsets", async () => {
    const { post, posts, values } = partition();
    const outcomes = await writeParts([part(["a", "b"]), part(["c"]), part(["d", "e", "f"])], post);
    expect(outcomes).toEqual([
      { ok: true, baseOffset: 0, timestamp: -1 },
      { ok: true, baseOffset: 2, timestamp: -1 },
      { ok: true, baseOffset: 3, timestamp: -1 },
    ]);
    expect(posts).toEqual([3]);
    expect(values()).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("puts an idempotent producer's consecutive requests in one write, and answers their retry with the original offsets", async () => {
    const { post, posts, values } = partition();
    const requests = [part(["a", "b"], { id: 7, sequence: 0 }), part(["c"], { id: 7, sequence: 2 }), part(["d"], { id: 7, sequence: 3 })];
    expect((await writeParts(requests, post)).map((outcome) => outcome.ok && outcome.baseOffset)).toEqual([0, 2, 3]);
    expect((await writeParts(requests.slice(1), post)).map((outcome) => outcome.ok && outcome.baseOffset)).toEqual([2, 3]);
    expect(posts).toEqual([3, 2]);
    expect(values()).toEqual(["a", "b", "c", "d"]);
  });

  it("writes apart what the partition would not take as one append: another producer or epoch, a gap, idempotent after not", async () => {
    const groups = writeGroups([
      part(["a"], { id: 7, sequence: 0 }),
      part(["b"], { id: 8, sequence: 0 }),
      part(["c"], { id: 8, epoch: 1, sequence: 0 }),
      part(["d"], { id: 8, epoch: 1, sequence: 5 }),
      part(["e"]),
      part(["f"]),
      part(["g"], { id: 9, sequence: 0 }),
    ]);
    expect(groups.map((group) => group.length)).toEqual([1, 1, 1, 1, 2, 1]);
    expect(outlineOf(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(writeGroups([{ records: new Uint8Array(3), outline: undefined }, { records: new Uint8Array(3), outline: undefined }])).toHaveLength(2);
  });

  it("keeps one write within the request size bound", () => {
    const big = (sequence: number): PartitionPart => ({
      records: new Uint8Array(Math.floor(produceRequestBytesMax / 2) - 1),
      outline: { producerId: 7, producerEpoch: 0, firstSequence: sequence, nextSequence: sequence + 1, offsets: 1 },
    });
    expect(writeGroups([big(0), big(1), big(2), big(3), big(4)]).map((group) => group.length)).toEqual([2, 2, 1]);
  });

  it("sends each request again on its own when the write is refused for what it held: a retry of written records, then new ones", async () => {
    const { post, posts, values } = partition();
    await writeParts([part(["a", "b"], { id: 7, sequence: 0 })], post);
    // The client retries request 1 (its answer was lost) and sends request 2 behind it.
    const outcomes = await writeParts([part(["a", "b"], { id: 7, sequence: 0 }), part(["c"], { id: 7, sequence: 2 })], post);
    expect(outcomes.map((outcome) => outcome.ok && outcome.baseOffset)).toEqual([0, 2]);
    expect(posts).toEqual([1, 2, 1, 1]);
    expect(values()).toEqual(["a", "b", "c"]);
  });

  it("answers a request refused on its own with its own error, and writes the others", async () => {
    const { post, values } = partition();
    await writeParts([part(["a"], { id: 7, sequence: 0 })], post);
    // Request 1 continues the producer; request 2 continues request 1; the partition expects sequence 1.
    const outcomes = await writeParts([part(["x"], { id: 7, sequence: 5 }), part(["y"], { id: 7, sequence: 6 })], post);
    expect(outcomes.map((outcome) => (outcome.ok ? "ok" : (outcome.error as TributaryError).code))).toEqual(["OUT_OF_ORDER_SEQUENCE_NUMBER", "OUT_OF_ORDER_SEQUENCE_NUMBER"]);
    const mixed = await writeParts([part(["b"]), part(["c"])], async (records) => {
      if ([...splitBatches(records)].length > 1) throw new TributaryError("INVALID_RECORD", "one of them is bad");
      return post(records);
    });
    expect(mixed.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(values()).toEqual(["a", "b", "c"]);
  });

  it("answers every request with a failure that is not about what the write held, after one write", async () => {
    let posts = 0;
    const unavailable = new TributaryError("NOT_ENOUGH_REPLICAS", "the ISR is below min.insync.replicas");
    const outcomes = await writeParts([part(["a"]), part(["b"]), part(["c"])], async () => {
      posts += 1;
      throw unavailable;
    });
    expect(outcomes).toEqual([0, 1, 2].map(() => ({ ok: false, error: unavailable })));
    expect(posts).toBe(1);
  });
});
