/**
 * A closed stream stays closed on every path (docs/durable-streams.md, "Mapping"): the
 * partition leader refuses any append to it — /v1 produce as JSON or binary batches, the
 * service binding — with 409 STREAM_CLOSED and nothing written.
 */
import { createExecutionContext, evictDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { replicaName } from "../../../src/contracts/stubs.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { TributaryService } from "../../../src/service.ts";
import { api, baseUrl, expectError, readResponse } from "../support/http.ts";
import { ds, plain, uniquePath } from "./support/stream-calls.ts";


async function highWatermark(name: string): Promise<number> {
  return (await api("GET", `/v1/topics/${name}`)).body.partitions[0].highWatermark;
}

async function produceBinary(name: string, value: string) {
  const body = encodeRecordBatch([{ key: null, value: new TextEncoder().encode(value), headers: [], timestamp: Date.now() }]);
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${name}/partitions/0/records`, { method: "POST", headers: { "content-type": recordBatchContentType }, body }),
  );
  return readResponse(response);
}

describe("a closed stream refuses every append", () => {
  it("/v1 produce (JSON and binary) and the service binding get 409 STREAM_CLOSED, before and after the leader restarts", async () => {
    const path = uniquePath("closed-v1");
    const name = streamTopicName(path);
    await ds("PUT", path, { headers: plain, body: "a" });
    // Open: /v1 produce appends to the stream's topic like any other.
    expect((await api("POST", `/v1/topics/${name}/records`, { records: [{ value: "b" }] })).status).toBe(200);
    expect((await ds("POST", path, { headers: { ...plain, "stream-closed": "true" }, body: "c" })).status).toBe(204);
    expect(await highWatermark(name)).toBe(3);

    const service = new TributaryService(createExecutionContext(), env);
    const refusals = async () => {
      expectError(await api("POST", `/v1/topics/${name}/records`, { records: [{ value: "json" }] }), 409, "STREAM_CLOSED");
      expectError(await produceBinary(name, "binary"), 409, "STREAM_CLOSED");
      expect(await service.produce(name, { records: [{ value: "rpc" }] })).toMatchObject({ ok: false, error: { code: "STREAM_CLOSED" } });
    };
    await refusals();
    const topic = (await api("GET", `/v1/topics/${name}`)).body;
    await evictDurableObject(env.PARTITIONS.get(env.PARTITIONS.idFromName(replicaName(topic.topicId, 0, topic.partitions[0].leader))));
    await refusals();
    expect(await highWatermark(name)).toBe(3);
    expect((await ds("GET", path)).text).toBe("abc");
  });

  it("leaves an open stream and plain topics writable through /v1", async () => {
    const path = uniquePath("open-v1");
    const name = streamTopicName(path);
    await ds("PUT", path, { headers: plain });
    expect((await produceBinary(name, "x")).status).toBe(200);
    expect((await ds("POST", path, { headers: plain, body: "y" })).status).toBe(204);
    expect((await ds("GET", path)).text).toBe("xy");
  });
});
