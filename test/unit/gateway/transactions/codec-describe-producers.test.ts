/**
 * Golden bytes for DescribeProducers (61, KIP-664), written out by hand from Kafka's message
 * definitions (DescribeProducersRequest.json / Response.json: v0 only, flexible): neither
 * kafkajs nor @platformatic/kafka speaks it.
 */
import { describe, expect, it } from "vitest";
import { apiKeys, messageSchemas } from "../../../../src/gateway/protocol/apis.ts";
import { messageCodec } from "../../../../src/gateway/protocol/codec.ts";
import { ByteReader, ByteWriter } from "../../../../src/gateway/protocol/primitives.ts";

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ""), "hex"));
const codec = () => messageCodec(messageSchemas.get(apiKeys.DescribeProducers)!, 0);

describe("DescribeProducers", () => {
  it("is advertised at v0 only, as Kafka 4 serves it", () => {
    expect(messageSchemas.get(61)?.versions).toEqual([0, 0]);
  });

  it("reads a v0 request and writes it back to the same bytes", () => {
    // topics: 1 (compact: 2); name "t"; partitionIndexes [0, 2]; the topic's tags; the request's tags.
    const bytes = hex("02 0274 03 00000000 00000002 00 00");
    const decoded = codec().readRequest(new ByteReader(bytes));
    if (!decoded.ok) throw new Error(decoded.error);
    expect(decoded.value).toEqual({ topics: [{ name: "t", partitionIndexes: [0, 2] }] });
    const writer = new ByteWriter();
    codec().writeRequest(writer, decoded.value);
    expect(Buffer.from(writer.finish()).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
  });

  it("writes a v0 answer: a producer with an open transaction, and a partition's error with its message", () => {
    const producer = { producerId: 7n, producerEpoch: 1, lastSequence: 4, lastTimestamp: 100n, coordinatorEpoch: -1, currentTxnStartOffset: 3n };
    const body = {
      throttleTimeMs: 0,
      topics: [{
        name: "t",
        partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null, activeProducers: [producer] },
          { partitionIndex: 9, errorCode: 3, errorMessage: "x", activeProducers: [] },
        ],
      }],
    };
    const expected = [
      "00000000", "02", "0274", "03",
      "00000000", "0000", "00", "02", "0000000000000007", "00000001", "00000004", "0000000000000064", "ffffffff", "0000000000000003", "00", "00",
      "00000009", "0003", "0278", "01", "00",
      "00", "00",
    ].join("");
    const writer = new ByteWriter();
    codec().writeResponse(writer, body);
    expect(Buffer.from(writer.finish()).toString("hex")).toBe(expected);
  });
});
