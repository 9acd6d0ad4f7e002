/**
 * The retry rules of the data plane's calls to a partition's leader (callLeader) and to a
 * share-partition's leading state replica (callShareState), which share one loop
 * (callWithOneRetry in src/data-plane/leader-calls.ts). The callee answers what each test
 * scripts; the controller and the metadata cache are real. The metadata the caller starts
 * with carries a leader epoch the controller never handed out, so a call made after a
 * refresh is told apart by its epoch.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TributaryError, unwrap, type ErrorCode, type Result } from "../../../src/errors.ts";
import { callLeader } from "../../../src/data-plane/leader-calls.ts";
import { rememberTopic, topicMetadata } from "../../../src/data-plane/metadata-cache.ts";
import { callShareState } from "../../../src/data-plane/share-state-calls.ts";
import { controllerStub } from "../../../src/contracts/stubs.ts";
import type { TopicMetadata } from "../../../src/topics/topic-metadata.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";

const staleEpoch = 1_000_000;

/** A fresh topic, and a copy of its metadata whose partition 0 carries the stale epoch. */
async function staleTopic(prefix: string): Promise<{ topic: TopicMetadata; stale: TopicMetadata }> {
  const name = uniqueTopic(prefix);
  await createTopic(name);
  const topic = unwrap(await controllerStub(env).describeTopic(name));
  const stale = { ...topic, partitions: topic.partitions.map((placement) => ({ ...placement, leaderEpoch: staleEpoch })) };
  return { topic, stale };
}

type Answer = "value" | "throws" | ErrorCode;

/** The callee: answers in turn, and records the leader epoch each call was made with. */
function scripted(answers: Answer[]) {
  const epochs: number[] = [];
  const answer = async (leaderEpoch: number): Promise<Result<string>> => {
    epochs.push(leaderEpoch);
    const next = answers[epochs.length - 1];
    if (next === undefined) throw new Error("called more often than scripted");
    if (next === "throws") throw new Error("the callee did not answer");
    if (next === "value") return { ok: true, value: `answer ${epochs.length}` };
    return { ok: false, error: new TributaryError(next, `scripted ${next}`).toValue() };
  };
  return { epochs, answer };
}

async function outcome(call: Promise<string>): Promise<string> {
  try {
    return await call;
  } catch (error) {
    return error instanceof TributaryError ? error.code : String(error);
  }
}

describe("callLeader", () => {
  async function leaderCall(answers: Answer[], retryUnreachable = false) {
    const { topic, stale } = await staleTopic("leader-calls");
    const callee = scripted(answers);
    const result = await outcome(callLeader(env, stale, 0, (_stub, call) => callee.answer(call.placement.leaderEpoch), { retryUnreachable }));
    return { result, epochs: callee.epochs, fresh: topic.partitions[0]!.leaderEpoch };
  }

  it("refreshes the metadata and calls once more after a stale answer (not leader, unknown topic)", async () => {
    for (const stale of ["NOT_LEADER_OR_FOLLOWER", "UNKNOWN_TOPIC_OR_PARTITION"] as const) {
      const { result, epochs, fresh } = await leaderCall([stale, "value"]);
      expect([stale, result, epochs]).toEqual([stale, "answer 2", [staleEpoch, fresh]]);
    }
  });

  it("answers the second stale answer, and any other error at once", async () => {
    const twice = await leaderCall(["NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_OR_FOLLOWER"]);
    expect([twice.result, twice.epochs.length]).toEqual(["NOT_LEADER_OR_FOLLOWER", 2]);
    const other = await leaderCall(["NOT_ENOUGH_REPLICAS"]);
    expect([other.result, other.epochs]).toEqual(["NOT_ENOUGH_REPLICAS", [staleEpoch]]);
  });

  it("answers LEADER_NOT_AVAILABLE when the leader does not answer a write, without calling again", async () => {
    const { result, epochs } = await leaderCall(["throws"], false);
    expect([result, epochs]).toEqual(["LEADER_NOT_AVAILABLE", [staleEpoch]]);
  });

  it("calls once more with fresh metadata when the leader does not answer a read, and no more", async () => {
    const once = await leaderCall(["throws", "value"], true);
    expect([once.result, once.epochs]).toEqual(["answer 2", [staleEpoch, once.fresh]]);
    const twice = await leaderCall(["throws", "throws"], true);
    expect([twice.result, twice.epochs.length]).toEqual(["LEADER_NOT_AVAILABLE", 2]);
  });
});

describe("callShareState", () => {
  async function shareCall(answers: Answer[]) {
    const { topic, stale } = await staleTopic("share-state-calls");
    const callee = scripted(answers);
    const result = await outcome(callShareState(env, stale, "group", 0, (_stub, key) => callee.answer(key.leaderEpoch)));
    return { result, epochs: callee.epochs, topic };
  }

  it("refreshes the metadata and calls once more after NOT_LEADER_OR_FOLLOWER, once only", async () => {
    const once = await shareCall(["NOT_LEADER_OR_FOLLOWER", "value"]);
    expect([once.result, once.epochs]).toEqual(["answer 2", [staleEpoch, once.topic.partitions[0]!.leaderEpoch]]);
    const twice = await shareCall(["NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_OR_FOLLOWER"]);
    expect([twice.result, twice.epochs.length]).toEqual(["NOT_LEADER_OR_FOLLOWER", 2]);
  });

  it("answers an unknown topic at once (unlike callLeader)", async () => {
    const { result, epochs } = await shareCall(["UNKNOWN_TOPIC_OR_PARTITION"]);
    expect([result, epochs]).toEqual(["UNKNOWN_TOPIC_OR_PARTITION", [staleEpoch]]);
  });

  it("never calls a state replica that did not answer again: LEADER_NOT_AVAILABLE naming its region", async () => {
    const { topic, stale } = await staleTopic("share-state-unreachable");
    const callee = scripted(["throws", "value"]);
    const error = await callShareState(env, stale, "group", 0, (_stub, key) => callee.answer(key.leaderEpoch)).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TributaryError);
    expect([(error as TributaryError).code, callee.epochs]).toEqual(["LEADER_NOT_AVAILABLE", [staleEpoch]]);
    expect((error as TributaryError).message).toContain(`partition 0 in ${topic.partitions[0]!.leader} did not answer`);
  });

  it("refreshes the metadata after NOT_ENOUGH_REPLICAS (the ISR may shrink) without calling again", async () => {
    for (const [code, refreshed] of [
      ["NOT_ENOUGH_REPLICAS", true],
      ["INVALID_REQUEST", false],
    ] as const) {
      const { topic, stale } = await staleTopic("share-state-isr");
      rememberTopic(stale); // the cache holds the stale copy until something refreshes it
      const callee = scripted([code]);
      const result = await outcome(callShareState(env, stale, "group", 0, (_stub, key) => callee.answer(key.leaderEpoch)));
      const cached = (await topicMetadata(env, topic.name)).partitions[0]!.leaderEpoch;
      expect([code, result, callee.epochs.length, cached]).toEqual([code, code, 1, refreshed ? topic.partitions[0]!.leaderEpoch : staleEpoch]);
    }
  });
});
