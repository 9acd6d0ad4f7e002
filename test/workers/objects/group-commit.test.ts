/**
 * Group commit in the partition object (src/log/group-commit.ts): appends that arrive while a
 * storage write is in progress are written together, in one transaction; past the waiting queue's bound an overloaded partition refuses with the
 * retriable BROKER_BUSY, writing nothing of what it refused (issues 7 and 8).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap, type Result } from "../../../src/errors.ts";
import { appendsWaitingMax } from "../../../src/limits.ts";
import type { PartitionReplica } from "../../../src/objects/partition-replica.ts";
import type { AppendAnswer, AppendRequest } from "../../../src/contracts/replica-api.ts";
import { replicaStub } from "../../../src/contracts/stubs.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { routedCall } from "../../../src/data-plane/leader-calls.ts";
import { topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { createTopic, readAll, uniqueTopic } from "../support/http.ts";

const utf8 = new TextEncoder();

function oneBatch(value: string): Uint8Array {
  return encodeRecordBatch([{ key: null, value: utf8.encode(value), headers: [], timestamp: Date.now() }]);
}

async function leaderOf(name: string) {
  await createTopic(name);
  const topic = await topicMetadata(env, name);
  const region = topic.partitions[0]!.leader;
  const call = routedCall(topic, 0, region);
  const stub = replicaStub(env, topic.topicId, 0, region);
  const append = (value: string): AppendRequest => ({ ...call, acks: 1, batches: [oneBatch(value)] });
  const debug = async () => unwrap(await stub.state({ topicId: topic.topicId, partition: 0, region })).debug!;
  return { stub, append, debug };
}

/** Calls the object's append `count` times in one turn, as concurrent requests arrive, inside the object. */
function appendAtOnce(stub: DurableObjectStub<PartitionReplica>, requests: AppendRequest[]): Promise<Result<AppendAnswer>[]> {
  return runInDurableObject(stub, (instance: PartitionReplica) => Promise.all(requests.map((request) => instance.append(request))));
}

describe("group commit", () => {
  it("writes concurrent appends to one partition in fewer transactions than appends, one row per batch", async () => {
    const { stub, append, debug } = await leaderOf(uniqueTopic("group-commit"));
    unwrap(await stub.append(append("first"))); // the replica's identity and first epoch are written here
    const before = await debug();
    const count = 20;
    const values = Array.from({ length: count }, (_, index) => `v${index}`);
    const results = (await appendAtOnce(stub, values.map(append))).map(unwrap);
    const after = await debug();
    // Every append answered, with its own consecutive offsets in arrival order.
    expect(results.map((result) => result.baseOffset)).toEqual(values.map((_, index) => index + 1));
    const groups = after.appendGroups - before.appendGroups;
    expect(after.appendsGrouped - before.appendsGrouped).toBe(count);
    expect(groups).toBeLessThan(count);
    // One row per batch and nothing else: each batch's row carries the log's bounds.
    expect(after.sqliteRowsWritten - before.sqliteRowsWritten).toBe(count);
  });

  it("refuses appends past the waiting bound with a retriable BROKER_BUSY, writing nothing of them", async () => {
    const name = uniqueTopic("group-commit-busy");
    const { stub, append } = await leaderOf(name);
    const count = appendsWaitingMax + 10;
    const values = Array.from({ length: count }, (_, index) => `v${index}`);
    const results = await appendAtOnce(stub, values.map(append));
    const refused = results.flatMap((result, index) => (result.ok ? [] : [{ index, error: result.error }]));
    // One append is written at once, appendsWaitingMax wait for it; the rest are refused.
    expect(refused.length).toBe(count - 1 - appendsWaitingMax);
    for (const { error } of refused) expect(error.code).toBe("BROKER_BUSY");
    const written = (await readAll(name, 0)).map((record) => record.value);
    expect(written).toEqual(values.filter((_, index) => results[index]!.ok));
  });
});
