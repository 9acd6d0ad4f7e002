/**
 * The transaction coordinator object through the /v1/transactions routes (issue 28;
 * docs/transactions.md): fencing at init, a transaction's offsets visible only at its commit
 * (gone at abort, UNSTABLE_OFFSET_COMMIT while pending), the timeout's abort by the alarm, the
 * admin's abort, the listing and description, and the retried end.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { transactionTimeoutMsMax } from "../../../src/limits.ts";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { join, uniqueGroup } from "../groups/support/groups.ts";
import {
  committedOffset,
  coordinatorKey,
  coordinatorOf,
  describeTransaction,
  endTransaction,
  initTransactions,
  sendOffsets,
  transactionPath,
  uniqueTransactionalId,
} from "./support.ts";

describe("the transaction coordinator", () => {
  it("init fences an older instance: its requests get PRODUCER_FENCED, the new one's pass", async () => {
    const id = uniqueTransactionalId("fence");
    const topic = uniqueTopic("fence");
    await createTopic(topic);
    const older = await initTransactions(id);
    expect(older.producerEpoch).toBe(0);
    const newer = await initTransactions(id);
    expect(newer).toEqual({ producerId: older.producerId, producerEpoch: 1 });
    const partitions = [{ topic, partition: 0 }];
    expectError(await api("POST", transactionPath(id, "/partitions"), { ...older, partitions }), 409, "PRODUCER_FENCED");
    expectError(await endTransaction(id, older, true), 409, "PRODUCER_FENCED");
    expectError(await api("POST", transactionPath(id, "/partitions"), { ...newer, producerEpoch: 5, partitions }), 409, "INVALID_PRODUCER_EPOCH");
    const added = await api("POST", transactionPath(id, "/partitions"), { ...newer, partitions });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual(newer);
    const described = await describeTransaction(id);
    expect(described).toMatchObject({ transactionalId: id, state: "Ongoing", ...newer, transactionTimeoutMs: 60_000, partitions });
    expect(described.transactionStartTimeMs).toBeGreaterThan(0);
  });

  it("a transaction's offsets appear only at its commit, and the end bumps the epoch", async () => {
    const id = uniqueTransactionalId("offsets");
    const topic = uniqueTopic("offsets");
    const group = uniqueGroup("offsets");
    await createTopic(topic);
    const identity = await initTransactions(id);
    const sent = await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 5 }]);
    expect(sent.status, sent.text).toBe(200);
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expectError(await api("GET", `/v1/groups/${group}/offsets?requireStable=true`), 409, "UNSTABLE_OFFSET_COMMIT");
    const ended = await endTransaction(id, identity, true);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toEqual({ producerId: identity.producerId, producerEpoch: identity.producerEpoch + 1 });
    expect(await committedOffset(group, topic, 0)).toBe(5);
    expect((await api("GET", `/v1/groups/${group}/offsets?requireStable=true`)).status).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteCommit", pendingMarkers: null, partitions: [], groups: [] });
    // A retried end (its answer lost) gets the same answer; the other result is refused.
    expect((await endTransaction(id, identity, true)).body).toEqual(ended.body);
    expectError(await endTransaction(id, identity, false), 409, "INVALID_TXN_STATE");
    // Offsets sent with the ended transaction's epoch are refused.
    expectError(await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 9 }]), 409, "PRODUCER_FENCED");
  });

  it("fences a member's transactional commit as its plain commit (KIP-447), and commits the member's offsets", async () => {
    const id = uniqueTransactionalId("member");
    const topic = uniqueTopic("member");
    const group = uniqueGroup("member");
    await createTopic(topic);
    const member = await join(group, [topic]);
    const identity = await initTransactions(id);
    const offsets = [{ topic, partition: 0, offset: 6 }];
    const stale = await api("POST", transactionPath(id, "/offsets"), { ...identity, groupId: group, memberId: member.memberId, memberEpoch: member.memberEpoch + 1, offsets });
    expectError(stale, 409, "FENCED_MEMBER_EPOCH");
    expectError(await api("POST", transactionPath(id, "/offsets"), { ...identity, groupId: group, memberId: "nobody", memberEpoch: 1, offsets }), 404, "UNKNOWN_MEMBER_ID");
    const sent = await api("POST", transactionPath(id, "/offsets"), { ...identity, groupId: group, memberId: member.memberId, memberEpoch: member.memberEpoch, offsets });
    expect(sent.status, sent.text).toBe(200);
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expect((await endTransaction(id, identity, true)).status).toBe(200);
    expect(await committedOffset(group, topic, 0)).toBe(6);
  });

  it("an abort drops the transaction's offsets", async () => {
    const id = uniqueTransactionalId("abort");
    const topic = uniqueTopic("abort");
    const group = uniqueGroup("abort");
    await createTopic(topic);
    const identity = await initTransactions(id);
    expect((await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 3 }])).status).toBe(200);
    // The group cannot be deleted under the transaction's offsets (its marker would write into the deleted group).
    expectError(await api("DELETE", `/v1/groups/${group}`), 409, "NON_EMPTY_GROUP");
    expect((await endTransaction(id, identity, false)).status).toBe(200);
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expect((await api("GET", `/v1/groups/${group}/offsets?requireStable=true`)).status).toBe(200);
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort" });
    expect((await api("DELETE", `/v1/groups/${group}`)).status).toBe(204);
  });

  it("aborts a transaction past its timeout by the alarm; the producer's commit is then refused, its abort answered", async () => {
    const id = uniqueTransactionalId("timeout");
    const topic = uniqueTopic("timeout");
    const group = uniqueGroup("timeout");
    await createTopic(topic);
    const identity = await initTransactions(id, 1_000);
    expect((await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 7 }])).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await runDurableObjectAlarm(await coordinatorOf(id)); // unless it already ran on its own
    expect(await describeTransaction(id)).toMatchObject({ state: "CompleteAbort", producerEpoch: identity.producerEpoch + 1 });
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expectError(await endTransaction(id, identity, true), 409, "INVALID_TXN_STATE");
    const aborted = await endTransaction(id, identity, false);
    expect(aborted.status, aborted.text).toBe(200);
    expect(aborted.body.producerEpoch).toBe(identity.producerEpoch + 1);
    // Idle now: no alarm left (an idle coordinator costs nothing).
    expect(await runDurableObjectAlarm(await coordinatorOf(id))).toBe(false);
    // KIP-360: the producer re-initializes naming the identity it held before the timeout: it
    // gets the timeout's bumped epoch (Kafka 4.4 answers so), again on a retry; an older one is fenced.
    const reinit = () => api("POST", transactionPath(id, "/init"), { transactionTimeoutMs: 1_000, ...identity });
    const bumped = { producerId: identity.producerId, producerEpoch: identity.producerEpoch + 1 };
    for (const attempt of [await reinit(), await reinit()]) expect([attempt.status, attempt.body]).toEqual([200, bumped]);
    expect(await describeTransaction(id)).toMatchObject({ state: "Empty", ...bumped });
    expect((await api("POST", transactionPath(id, "/init"), { transactionTimeoutMs: 1_000, ...bumped })).body).toEqual({ ...bumped, producerEpoch: bumped.producerEpoch + 1 });
    expectError(await reinit(), 409, "PRODUCER_FENCED");
    expectError(await api("POST", transactionPath(id, "/init"), { producerId: identity.producerId }), 400, "INVALID_REQUEST");
  });

  it("an init aborts what the previous instance left open", async () => {
    const id = uniqueTransactionalId("reinit");
    const topic = uniqueTopic("reinit");
    const group = uniqueGroup("reinit");
    await createTopic(topic);
    const older = await initTransactions(id);
    expect((await sendOffsets(id, older, group, [{ topic, partition: 0, offset: 4 }])).status).toBe(200);
    const newer = await initTransactions(id);
    // The abort's markers carried epoch + 1; the new instance gets one more.
    expect(newer).toEqual({ producerId: older.producerId, producerEpoch: older.producerEpoch + 2 });
    expect(await describeTransaction(id)).toMatchObject({ state: "Empty" });
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expect((await api("GET", `/v1/groups/${group}/offsets?requireStable=true`)).status).toBe(200);
  });

  it("an admin's abort ends the open transaction", async () => {
    const id = uniqueTransactionalId("admin");
    const topic = uniqueTopic("admin");
    const group = uniqueGroup("admin");
    await createTopic(topic);
    const identity = await initTransactions(id);
    expect((await sendOffsets(id, identity, group, [{ topic, partition: 0, offset: 2 }])).status).toBe(200);
    const aborted = await api("POST", transactionPath(id, "/abort"));
    expect(aborted.status, aborted.text).toBe(200);
    expect(aborted.body).toMatchObject({ state: "CompleteAbort" });
    expect(await committedOffset(group, topic, 0)).toBeNull();
    expectError(await api("POST", transactionPath(id, "/abort")), 409, "INVALID_TXN_STATE");
  });

  it("checks a transactional produce: the current producer, and adds the partitions its open transaction lacks", async () => {
    const id = uniqueTransactionalId("verify");
    const topic = uniqueTopic("verify");
    await createTopic(topic, { partitions: 2 });
    const identity = await initTransactions(id);
    const added = [{ topic, partition: 0 }];
    expect((await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: added })).status).toBe(200);
    expect(await (await coordinatorOf(id)).addPartitionsForWrite(await coordinatorKey(id), id, identity, added)).toEqual({ ok: true, value: undefined });
    expect(await (await coordinatorOf(id)).addPartitionsForWrite(await coordinatorKey(id), id, identity, [{ topic, partition: 1 }])).toEqual({ ok: true, value: undefined });
    expect(await describeTransaction(id)).toMatchObject({ state: "Ongoing", partitions: [...added, { topic, partition: 1 }] });
    expect((await endTransaction(id, identity, false)).status).toBe(200);
    expect(await (await coordinatorOf(id)).addPartitionsForWrite(await coordinatorKey(id), id, identity, added)).toMatchObject({ ok: false, error: { code: "PRODUCER_FENCED" } });
  });

  it("lists initialized transactional ids; refuses unknown ids and timeouts past the deployment's maximum", async () => {
    const id = uniqueTransactionalId("list");
    const identity = await initTransactions(id, 30_000);
    const listed = await api("GET", "/v1/transactions");
    expect(listed.status).toBe(200);
    expect(listed.body.transactions).toContainEqual(expect.objectContaining({ transactionalId: id, ...identity, transactionTimeoutMs: 30_000 }));
    expectError(await api("GET", transactionPath(uniqueTransactionalId("unknown"))), 404, "TRANSACTIONAL_ID_NOT_FOUND");
    // No body: Kafka's default transaction.timeout.ms.
    const defaulted = uniqueTransactionalId("default");
    expect((await api("POST", transactionPath(defaulted, "/init"))).status).toBe(200);
    expect(await describeTransaction(defaulted)).toMatchObject({ state: "Empty", transactionTimeoutMs: 60_000, transactionStartTimeMs: null });
    expectError(await api("POST", transactionPath(id, "/init"), { transactionTimeoutMs: transactionTimeoutMsMax + 1 }), 400, "INVALID_TRANSACTION_TIMEOUT");
    const missingTopic = uniqueTopic("missing");
    const topic = uniqueTopic("listed");
    await createTopic(topic);
    const refused = await api("POST", transactionPath(id, "/partitions"), { ...identity, partitions: [{ topic: missingTopic, partition: 0 }, { topic, partition: 0 }, { topic, partition: 7 }] });
    expectError(refused, 404, "UNKNOWN_TOPIC_OR_PARTITION");
    // Each refused partition named (the gateway answers Kafka's per-partition codes from them); nothing added.
    expect(refused.body.error.partitions).toEqual([
      { topic: missingTopic, partition: 0, code: "UNKNOWN_TOPIC_OR_PARTITION" },
      { topic, partition: 7, code: "UNKNOWN_TOPIC_OR_PARTITION" },
    ]);
    expect(await describeTransaction(id)).toMatchObject({ partitions: [] });
  });
});
