/**
 * The service binding in workerd: TributaryService's RPC methods answer Results whose error
 * values keep API.md's code and data across the RPC boundary, and the two example Workers
 * (examples/) produce on requests and consume on a cron trigger through it.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { splitBatches } from "../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../src/protocol/record-batch-decode.ts";
import { isTributaryError, unwrapResult, type TributaryRpc } from "../../src/client/index.ts";

const service = (exports as unknown as { TributaryService: TributaryRpc }).TributaryService;
const examples = env as unknown as { PRODUCER_EXAMPLE: Fetcher; CRON_EXAMPLE: Fetcher & { scheduled(options: { cron: string }): Promise<unknown> } };

describe("TributaryService over RPC", () => {
  it("administers topics and produces and fetches, JSON and binary", async () => {
    unwrapResult(await service.createTopic({ name: "rpc-topic", partitions: 2 }));
    expect(unwrapResult(await service.listTopics())).toMatchObject({ topics: expect.arrayContaining([{ name: "rpc-topic", partitions: 2, replicationFactor: 1 }]) });
    const produced = unwrapResult(await service.produce("rpc-topic", { records: [{ value: "one", partition: 1 }, { key: "k", value: "two", partition: 1 }] }));
    expect(produced).toMatchObject({ offsets: [{ partition: 1, offset: 0 }, { partition: 1, offset: 1 }] });
    const batch = encodeRecordBatch([{ key: null, value: new TextEncoder().encode("three"), headers: [], timestamp: Date.now() }]);
    expect(unwrapResult(await service.produceBatches("rpc-topic", 1, batch))).toMatchObject({ partition: 1, baseOffset: 2, lastOffset: 2 });
    const json = unwrapResult(await service.fetchRecords("rpc-topic", 1, { offset: 0 }));
    expect((json.records as { value: string }[]).map((record) => record.value)).toEqual(["one", "two", "three"]);
    const binary = unwrapResult(await service.fetchBatches("rpc-topic", 1, { offset: 2 }));
    expect(binary).toMatchObject({ highWatermark: 3, nextOffset: 3, logStartOffset: 0 });
    const values = [...splitBatches(binary.batches)].flatMap(({ start }) => decodeRecordBatch(binary.batches, start).records);
    expect(new TextDecoder().decode(values.at(-1)!.value!)).toBe("three");
  });

  it("answers errors as values that keep their code and data, rebuilt as TributaryErrors by the caller", async () => {
    unwrapResult(await service.createTopic({ name: "rpc-errors", partitions: 1 }));
    const outOfRange = await service.fetchRecords("rpc-errors", 0, { offset: 5 });
    expect(outOfRange).toEqual({
      ok: false,
      error: { code: "OFFSET_OUT_OF_RANGE", message: expect.any(String), data: { logStartOffset: 0, highWatermark: 0 } },
    });
    let thrown: unknown;
    try {
      unwrapResult(outOfRange);
    } catch (error) {
      thrown = error;
    }
    if (!isTributaryError(thrown, "OFFSET_OUT_OF_RANGE")) throw new Error(`expected OFFSET_OUT_OF_RANGE, got ${String(thrown)}`);
    expect(thrown.data.highWatermark).toBe(0);
    const invalid = await service.createTopic({ name: "bad name!" });
    expect(invalid).toMatchObject({ ok: false, error: { code: "INVALID_TOPIC_EXCEPTION" } });
    const missing = await service.produce("no-such-topic", { records: [{ value: "x" }] });
    expect(missing).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
  });

  it("serves the HTTP API on fetch too, for the client's new Tributary({ binding })", async () => {
    const response = await (service as unknown as Fetcher).fetch("http://tributary/v1/health");
    expect(await response.json()).toEqual({ status: "ok" });
  });
});

describe("examples/", () => {
  it("producer-worker produces one record per request; cron-consumer digests them on its cron trigger", async () => {
    unwrapResult(await service.createTopic({ name: "requests", partitions: 2 }));
    unwrapResult(await service.createTopic({ name: "digests", partitions: 1 }));
    for (const path of ["/a", "/b", "/a"]) {
      const response = await examples.PRODUCER_EXAMPLE.fetch(`http://producer.example${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ offsets: [{ partition: expect.any(Number), offset: expect.any(Number) }] });
    }

    await examples.CRON_EXAMPLE.scheduled({ cron: "*/5 * * * *" });
    const digests = unwrapResult(await service.fetchRecords("digests", 0, { offset: 0 }));
    const first = JSON.parse((digests.records as { value: string }[])[0]!.value);
    expect(first).toMatchObject({ records: 3, byKey: { "/a": 2, "/b": 1 } });
    const offsets = unwrapResult(await service.groupOffsets("digest"));
    expect((offsets.offsets as { lag: number }[]).every((entry) => entry.lag === 0)).toBe(true);

    // The next run starts at the commit: only what came since.
    await examples.PRODUCER_EXAMPLE.fetch("http://producer.example/c");
    await examples.CRON_EXAMPLE.scheduled({ cron: "*/5 * * * *" });
    const second = unwrapResult(await service.fetchRecords("digests", 0, { offset: 1 }));
    expect(JSON.parse((second.records as { value: string }[])[0]!.value)).toMatchObject({ records: 1, byKey: { "/c": 1 } });
  });

  it("producer-worker answers a Tributary error value with its code", async () => {
    await service.deleteTopic("requests"); // whether or not an earlier test created it: now it does not exist
    const response = await examples.PRODUCER_EXAMPLE.fetch("http://producer.example/x");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: "UNKNOWN_TOPIC_OR_PARTITION" } });
  });
});
