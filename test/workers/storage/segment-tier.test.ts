/**
 * The R2 tier against real R2 (workerd's), with failures injected around the bucket: a failed
 * seal loses nothing, a retried seal that finds its own object succeeds, and a foreign object
 * under the same key is never taken for ours.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PartitionLog } from "../../../src/log/partition-log.ts";
import { segmentObjectKey } from "../../../src/log/segment-manifest.ts";
import { defaultPartitionConfig } from "../../../src/contracts/partition-config.ts";
import { SegmentTier, type SegmentBucket } from "../../../src/objects/segment-tier.ts";
import { SqliteLogStore } from "../../../src/objects/sqlite-log-store.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";

const utf8 = new TextEncoder();
const config = { ...defaultPartitionConfig, segmentBytes: 65_536 };

/** A bucket whose put fails: before writing ("unreachable"), or after writing (the reply lost). */
function failingBucket(mode: "before" | "after"): SegmentBucket {
  const bucket = env.SEGMENTS;
  return {
    head: (key) => bucket.head(key),
    get: (key, options) => bucket.get(key, options),
    delete: (keys) => bucket.delete(keys),
    list: (options) => bucket.list(options),
    put: async (key, value, options) => {
      if (mode === "after") await bucket.put(key, value, options);
      throw new Error(`injected R2 failure ${mode} the write`);
    },
  } as SegmentBucket;
}

/** Runs `body` inside a fresh partition object with a log holding ~100 KiB of committed batches. */
async function withLog(body: (log: PartitionLog, sql: SqlStorage, topicId: string) => Promise<void>): Promise<void> {
  const stub = env.PARTITIONS.get(env.PARTITIONS.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const log = new PartitionLog(new SqliteLogStore(state.storage.sql));
    for (let index = 0; index < 100; index++) {
      const batch = encodeRecordBatch([{ key: utf8.encode(`k${index}`), value: new Uint8Array(1_000).fill(index), headers: [], timestamp: 1_000 + index }]);
      log.append([batch], 0, { commit: true });
    }
    await body(log, state.storage.sql, crypto.randomUUID());
  });
}

describe("SegmentTier and R2 failures", () => {
  it("loses nothing when the put fails: the rows stay, and a later seal succeeds", async () => {
    await withLog(async (log, sql, topicId) => {
      const bytesBefore = log.localBytes;
      const broken = new SegmentTier(sql, failingBucket("before"), topicId, 0);
      await expect(broken.seal(log, config, Date.now())).rejects.toThrow(/injected/);
      expect([log.localBytes, log.localStartOffset, broken.manifest.length]).toEqual([bytesBefore, 0, 0]);
      const tier = new SegmentTier(sql, env.SEGMENTS, topicId, 0);
      const { sealed } = await tier.seal(log, config, Date.now());
      expect(sealed).toBe(1);
      expect(log.localStartOffset).toBeGreaterThan(0);
      const read = await tier.read(0, { maxRecords: 1_000, maxBytes: 1 << 20 });
      expect(read.length).toBe(log.localStartOffset); // one record per batch
    });
  });

  it("completes a seal retried after its object was written but the reply lost (same checksum)", async () => {
    await withLog(async (log, sql, topicId) => {
      const lost = new SegmentTier(sql, failingBucket("after"), topicId, 0);
      await expect(lost.seal(log, config, Date.now())).rejects.toThrow(/injected/);
      expect(log.localStartOffset).toBe(0);
      expect(await env.SEGMENTS.head(segmentObjectKey(topicId, 0, 0, 0))).not.toBeNull();
      const tier = new SegmentTier(sql, env.SEGMENTS, topicId, 0);
      expect((await tier.seal(log, config, Date.now())).sealed).toBe(1);
      expect(tier.manifest[0]!.baseOffset).toBe(0);
    });
  });

  it("refuses to take an object with other contents for its own", async () => {
    await withLog(async (log, sql, topicId) => {
      await env.SEGMENTS.put(segmentObjectKey(topicId, 0, 0, 0), "someone else's bytes", { customMetadata: { crc32c: "1" } });
      const tier = new SegmentTier(sql, env.SEGMENTS, topicId, 0);
      await expect(tier.seal(log, config, Date.now())).rejects.toThrow(/other contents/);
      expect([log.localStartOffset, tier.manifest.length]).toEqual([0, 0]);
    });
  });
});

describe("SegmentTier's published manifest (src/log/sealed-manifest.ts)", () => {
  it("is written with each seal and the leader's epoch, and a deposed leader never replaces its successor's", async () => {
    await withLog(async (log, sql, topicId) => {
      const { parsePublishedManifest, sealedManifestKey } = await import("../../../src/log/sealed-manifest.ts");
      const key = sealedManifestKey(topicId, 0);
      const deposed = new SegmentTier(sql, env.SEGMENTS, topicId, 0, () => 1);
      expect((await deposed.seal(log, config, Date.now())).sealed).toBe(1);
      const first = await env.SEGMENTS.get(key);
      expect(first?.customMetadata?.leaderEpoch).toBe("1");
      expect(parsePublishedManifest(await first!.text()).segments.map((segment) => segment.objectKey)).toEqual(deposed.manifest.map((entry) => entry.objectKey));
      // The successor (epoch 2) publishes; then the deposed leader's next publication is refused.
      const successor = new SegmentTier(sql, env.SEGMENTS, topicId, 0, () => 2);
      for (let index = 100; index < 200; index++) {
        log.append([encodeRecordBatch([{ key: utf8.encode(`k${index}`), value: new Uint8Array(1_000).fill(index), headers: [], timestamp: 1_000 + index }])], 0, { commit: true });
      }
      expect((await successor.seal(log, config, Date.now())).sealed).toBeGreaterThan(0);
      const published = await env.SEGMENTS.get(key);
      expect(published?.customMetadata?.leaderEpoch).toBe("2");
      const successorText = await published!.text();
      await expect(deposed.applyRetention(log, { ...config, deleteEnabled: true, retentionBytes: 0 }, Date.now())).rejects.toThrow(/leader epoch 2/);
      expect(await (await env.SEGMENTS.get(key))!.text()).toBe(successorText);
      expect(log.logStartOffset).toBe(0); // refused before the log start moved
    });
  });
});
