/**
 * A Fetch answer whose records are the pieces an upstream read delivered (upstream-read.ts)
 * encodes to exactly the bytes of the same records given whole, at every version (plain and
 * flexible lengths), with the long pieces written by reference, not copied; kafkajs decodes a
 * stored batch split at arbitrary points as it decodes it whole.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { ByteWriter } from "../../../src/gateway/protocol/primitives.ts";

const require = createRequire(import.meta.url);

function answer(records: Uint8Array | Uint8Array[]) {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: "orders",
        topicId: new Uint8Array(16).fill(7),
        partitions: [
          { partitionIndex: 0, errorCode: 0, highWatermark: 9n, lastStableOffset: 9n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records },
          { partitionIndex: 1, errorCode: 0, highWatermark: 0n, lastStableOffset: 0n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: [] },
        ],
      },
    ],
  };
}

function encode(version: number, body: Record<string, unknown>): ByteWriter {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(apiKeys.Fetch)!, version).writeResponse(writer, body);
  return writer;
}

const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251);

describe("a Fetch answer's records in pieces", () => {
  const pieces = [bytes(70_000, 1), bytes(10, 2), bytes(5_000, 3), bytes(1, 4)];
  const whole = Buffer.concat(pieces);

  it.each([4, 11, 12, 13, 15])("v%i: the same bytes as the records given whole, the long pieces not copied", (version) => {
    const asPieces = encode(version, answer(pieces));
    expect(Buffer.from(asPieces.finish())).toEqual(Buffer.from(encode(version, answer(new Uint8Array(whole))).finish()));
    const written = asPieces.chunks();
    expect(written).toContain(pieces[0]);
    expect(written).toContain(pieces[2]);
    // An empty list of pieces is a partition with no records: a zero length, as an empty array.
    const empty = answer([]);
    expect(Buffer.from(encode(version, empty).finish())).toEqual(Buffer.from(encode(version, answer(new Uint8Array(0))).finish()));
  });

  it("kafkajs decodes a stored batch split at arbitrary points as the batch whole", async () => {
    const Long = require("kafkajs/src/utils/long");
    const batchRequest = require("kafkajs/src/protocol/recordBatch/v0") as { RecordBatch(args: unknown): Promise<{ buffer: Buffer }> };
    const Record = require("kafkajs/src/protocol/recordBatch/record/v0");
    const Encoder = require("kafkajs/src/protocol/encoder");
    const records = Array.from({ length: 50 }, (_, i) => Record({ offsetDelta: i, key: Buffer.from(`k${i}`), value: Buffer.alloc(200, i) }));
    const batch = await batchRequest.RecordBatch({ firstOffset: Long.fromInt(100), records });
    const framed = new Encoder().writeEncoder(batch).buffer as Buffer;
    const split = [framed.subarray(0, 3), framed.subarray(3, 4_500), framed.subarray(4_500, 4_501), framed.subarray(4_501)];
    const response = require("kafkajs/src/protocol/requests/fetch/v11/response") as { decode(raw: Buffer): Promise<unknown>; parse(decoded: unknown): Promise<Record<string, unknown>> };
    const parsed = await response.parse(await response.decode(Buffer.from(encode(11, answer(split)).finish())));
    const [topic] = parsed.responses as { partitions: { messages: { key: Buffer; value: Buffer; offset: string }[] }[] }[];
    const messages = topic!.partitions[0]!.messages;
    expect(messages).toHaveLength(50);
    expect(messages.map((m) => [m.offset, m.key.toString(), m.value[0]])).toEqual(Array.from({ length: 50 }, (_, i) => [String(100 + i), `k${i}`, i]));
  });
});
