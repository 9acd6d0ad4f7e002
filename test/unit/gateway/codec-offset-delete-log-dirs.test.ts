/**
 * OffsetDelete v0 and DescribeLogDirs v2–v4 (issue 29) against @platformatic/kafka's encoders
 * and parsers (its Admin's deleteConsumerGroupOffsets and describeLogDirs): its requests decode
 * with the gateway's layouts and encode back to the same bytes, and the gateway's answers parse.
 */
import { describe, expect, it } from "vitest";
import { messageCodec } from "../../../src/gateway/protocol/codec.ts";
import { apiKeys, messageSchemas } from "../../../src/gateway/protocol/apis.ts";
import { ByteReader, ByteWriter } from "../../../src/gateway/protocol/primitives.ts";

const dist = "../../../node_modules/@platformatic/kafka/dist";
type Api = { createRequest(...args: unknown[]): { buffer: Buffer }; parseResponse(correlationId: number, apiKey: number, apiVersion: number, reader: unknown): unknown };
const load = async (path: string): Promise<Api> => (await import(`${dist}/apis/${path}.js`)) as Api;
const { Reader } = (await import(`${dist}/protocol/reader.js`)) as { Reader: { from(buffer: Buffer): unknown } };

async function roundTrip(path: string, key: number, version: number, args: unknown[]): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array((await load(path)).createRequest(...args).buffer);
  const codec = messageCodec(messageSchemas.get(key)!, version);
  const decoded = codec.readRequest(new ByteReader(bytes));
  if (!decoded.ok) throw new Error(decoded.error);
  const writer = new ByteWriter();
  codec.writeRequest(writer, decoded.value);
  expect(Buffer.from(writer.finish()).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
  return decoded.value;
}

async function parse(path: string, key: number, version: number, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const writer = new ByteWriter();
  messageCodec(messageSchemas.get(key)!, version).writeResponse(writer, body);
  return (await load(path)).parseResponse(1, key, version, Reader.from(Buffer.from(writer.finish()))) as Record<string, unknown>;
}

describe("OffsetDelete v0", () => {
  it("reads @platformatic/kafka's request and writes the answer its parser reads, per partition codes included", async () => {
    const request = await roundTrip("admin/offset-delete-v0", apiKeys.OffsetDelete, 0, ["group-a", [{ name: "orders", partitions: [{ partitionIndex: 0 }, { partitionIndex: 2 }] }]]);
    expect(request).toEqual({ groupId: "group-a", topics: [{ name: "orders", partitions: [{ partitionIndex: 0 }, { partitionIndex: 2 }] }] });
    const body = { errorCode: 0, throttleTimeMs: 0, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 2, errorCode: 0 }] }] };
    expect(await parse("admin/offset-delete-v0", apiKeys.OffsetDelete, 0, body)).toMatchObject(body);
    // GROUP_SUBSCRIBED_TO_TOPIC (86) for a partition: the parser reports it by path.
    const refused = { ...body, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 86 }] }] };
    await expect(parse("admin/offset-delete-v0", apiKeys.OffsetDelete, 0, refused)).rejects.toMatchObject({ response: refused });
  });
});

describe("DescribeLogDirs", () => {
  const topics = [{ name: "orders", partitions: [{ partitionIndex: 1, partitionSize: 4096n, offsetLag: 0n, isFutureKey: false }] }];

  it.each([2, 3, 4])("v%i: reads @platformatic/kafka's request and writes the answer its parser reads", async (version) => {
    const request = await roundTrip(`admin/describe-log-dirs-v${version}`, apiKeys.DescribeLogDirs, version, [[{ name: "orders", partitions: [0, 1] }]]);
    expect(request).toEqual({ topics: [{ topic: "orders", partitions: [0, 1] }] });
    const body = { throttleTimeMs: 0, errorCode: 0, results: [{ errorCode: 0, logDir: "tributary", topics, totalBytes: -1n, usableBytes: -1n }] };
    const parsed = await parse(`admin/describe-log-dirs-v${version}`, apiKeys.DescribeLogDirs, version, body);
    expect(parsed).toMatchObject({ results: [{ logDir: "tributary", topics }] });
    if (version === 4) expect(parsed).toMatchObject({ results: [{ totalBytes: -1n, usableBytes: -1n }] });
  });
});
