/**
 * KIP-320's check of the client's current leader epoch (src/gateway/handlers/leader-epoch-check.ts)
 * in Fetch, ListOffsets and OffsetForLeaderEpoch: an older epoch is FENCED_LEADER_EPOCH and a
 * newer one UNKNOWN_LEADER_EPOCH (after one fresh look), neither read; −1 and the partition's
 * own epoch are served. The handlers get a session stand-in with the calls they make: the
 * partition epochs Metadata reports, and reads that count themselves.
 */
import { describe, expect, it } from "vitest";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { fetch } from "../../../src/gateway/handlers/fetch.ts";
import { epochCode } from "../../../src/gateway/handlers/leader-epoch-check.ts";
import { listOffsets } from "../../../src/gateway/handlers/list-offsets.ts";
import { offsetForLeaderEpoch } from "../../../src/gateway/handlers/offset-for-leader-epoch.ts";
import { kafkaErrors } from "../../../src/gateway/kafka-errors.ts";

let connections = 0;

/** A gateway context whose topic `orders` has one partition at leader epoch `epoch` (a fresh look finds `fresh`). */
function contextAt(epoch: number, fresh = epoch) {
  const calls = { reads: 0, jsons: 0, refreshes: 0 };
  const session = {
    leaderEpochs: async (topic: string, refresh = false) => {
      if (topic !== "orders") return undefined;
      if (refresh) calls.refreshes += 1;
      return [refresh ? fresh : epoch];
    },
    readRecords: async () => {
      calls.reads += 1;
      return { chunks: [], bytes: 0, header: (name: string) => (name.toLowerCase().includes("high-watermark") ? "0" : undefined) };
    },
    invalidate: () => undefined,
  };
  const transport = {
    json: async () => {
      calls.jsons += 1;
      return { offset: 7, leaderEpoch: epoch };
    },
  };
  const context = { session, transport, connectionId: ++connections, onClose: () => undefined, apiVersion: 12 } as unknown as GatewayRequestContext;
  return { context, calls };
}

const fetchAt = (currentLeaderEpoch: number) => ({
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1024,
  isolationLevel: 0,
  topics: [{ topic: "orders", partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1024, currentLeaderEpoch }] }],
});

const fetchedCode = (answer: Record<string, unknown>) => (answer as { responses: { partitions: { errorCode: number }[] }[] }).responses[0]!.partitions[0]!.errorCode;

describe("the client's current leader epoch (KIP-320)", () => {
  it("is Kafka's rule: equal or −1 passes, older is fenced, newer is unknown", () => {
    expect(epochCode(3, 3)).toBe(kafkaErrors.NONE);
    expect(epochCode(-1, 3)).toBe(kafkaErrors.NONE);
    expect(epochCode(2, 3)).toBe(kafkaErrors.FENCED_LEADER_EPOCH);
    expect(epochCode(4, 3)).toBe(kafkaErrors.UNKNOWN_LEADER_EPOCH);
  });

  it("Fetch (v9+): a partition fetched at an older epoch is FENCED_LEADER_EPOCH and a newer one UNKNOWN_LEADER_EPOCH, neither read; its own epoch and −1 are read", async () => {
    const older = contextAt(3);
    expect(fetchedCode(await fetch(fetchAt(2), older.context))).toBe(kafkaErrors.FENCED_LEADER_EPOCH);
    expect(older.calls).toMatchObject({ reads: 0, refreshes: 0 });

    const newer = contextAt(3);
    expect(fetchedCode(await fetch(fetchAt(4), newer.context))).toBe(kafkaErrors.UNKNOWN_LEADER_EPOCH);
    expect(newer.calls).toMatchObject({ reads: 0, refreshes: 1 });

    // A newer epoch the gateway's view had not seen yet: the fresh look finds it, and the partition is read.
    const behind = contextAt(3, 4);
    expect(fetchedCode(await fetch(fetchAt(4), behind.context))).toBe(kafkaErrors.NONE);
    expect(behind.calls.reads).toBe(1);

    for (const epoch of [3, -1]) {
      const current = contextAt(3);
      expect(fetchedCode(await fetch(fetchAt(epoch), current.context))).toBe(kafkaErrors.NONE);
      expect(current.calls.reads, `epoch ${epoch}`).toBe(1);
    }
  });

  it("ListOffsets (v4+) and OffsetForLeaderEpoch answer the same codes, asking Tributary nothing", async () => {
    const listAt = (currentLeaderEpoch: number) => ({ isolationLevel: 0, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch }] }] });
    const listedCode = (answer: Record<string, unknown>) => (answer as { topics: { partitions: { errorCode: number }[] }[] }).topics[0]!.partitions[0]!.errorCode;
    for (const [epoch, code, asked] of [[2, kafkaErrors.FENCED_LEADER_EPOCH, 0], [4, kafkaErrors.UNKNOWN_LEADER_EPOCH, 0], [3, kafkaErrors.NONE, 1], [-1, kafkaErrors.NONE, 1]] as const) {
      const listed = contextAt(3);
      expect(listedCode(await listOffsets(listAt(epoch), listed.context)), `ListOffsets at ${epoch}`).toBe(code);
      expect(listed.calls.jsons, `ListOffsets at ${epoch}`).toBe(asked);

      const validated = contextAt(3);
      const answer = await offsetForLeaderEpoch({ topics: [{ topic: "orders", partitions: [{ partition: 0, currentLeaderEpoch: epoch, leaderEpoch: 3 }] }] }, validated.context);
      expect(listedCode({ topics: (answer as { topics: { partitions: unknown[] }[] }).topics }), `OffsetForLeaderEpoch at ${epoch}`).toBe(code);
      expect(validated.calls.jsons, `OffsetForLeaderEpoch at ${epoch}`).toBe(asked);
    }
  });
});
