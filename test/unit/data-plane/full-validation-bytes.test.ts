/**
 * Full validation holds a request's keys and values until its schemas are fetched: a compressed
 * batch's records stay inflated until then, so what one request may hold is bounded
 * (schemaFullValidationBytesMax), refused before more is inflated; id validation alone holds nothing.
 */
import { describe, expect, it } from "vitest";
import { checkClientBatches } from "../../../src/data-plane/binary-produce.ts";
import { TributaryError } from "../../../src/errors.ts";
import { decompressedBatchBytesMax, schemaFullValidationBytesMax } from "../../../src/limits.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import type { TopicMetadata } from "../../../src/topics/topic-metadata.ts";

function topicWith(configs: Record<string, string>): TopicMetadata {
  return {
    name: "t",
    topicId: "00000000-0000-4000-8000-000000000000",
    replicationFactor: 1,
    configs,
    partitions: [{ partition: 0, leader: "wnam", replicas: ["wnam"], isr: ["wnam"], leaderEpoch: 0, partitionEpoch: 0 }],
  } as TopicMetadata;
}

/** A gzip batch of one record whose value is in the wire format (schema id 1) and inflates to nearly decompressedBatchBytesMax. */
function largeBatch(): Uint8Array {
  const value = new Uint8Array(decompressedBatchBytesMax - 1024);
  value[4] = 1;
  return compressBatch(encodeRecordBatch([{ key: null, value, headers: [], timestamp: Date.now() }]), "gzip");
}

describe("full validation's bytes per request", () => {
  it("refuses a request of compressed batches inflating past schemaFullValidationBytesMax, and takes one under it", () => {
    const batch = largeBatch();
    const count = Math.floor(schemaFullValidationBytesMax / (decompressedBatchBytesMax - 1024)) + 1;
    const body = new Uint8Array(batch.length * count);
    for (let index = 0; index < count; index++) body.set(batch, index * batch.length);
    const full = topicWith({ "tributary.value.schema.validation": "full" });
    let refused: unknown;
    try {
      checkClientBatches(body, full, Date.now());
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(TributaryError);
    expect((refused as TributaryError).code).toBe("RECORD_LIST_TOO_LARGE");
    expect((refused as TributaryError).message).toMatch(/schemaFullValidationBytesMax/);
    const under = body.subarray(0, batch.length * (count - 1));
    expect(checkClientBatches(under, full, Date.now()).schemaRefs.map((ref) => ref.payload?.length)).toEqual(Array(count - 1).fill(decompressedBatchBytesMax - 1024));
    // Id validation alone keeps no payload, so it holds nothing.
    const idOnly = checkClientBatches(body, topicWith({ "confluent.value.schema.validation": "true" }), Date.now());
    expect(idOnly.schemaRefs.every((ref) => ref.payload === undefined)).toBe(true);
  });
});
