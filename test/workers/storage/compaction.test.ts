/**
 * Log compaction through the router (issue 5): across all sealed segments, the last record
 * of each key is kept, offsets never change, tombstones go after delete.retention.ms, and the
 * active segment is left alone.
 */
import { describe, expect, it } from "vitest";
import { eventually, produceRetrying } from "./support.ts";
import { api, createTopic, describeTopic, uniqueTopic } from "../support/http.ts";

interface Read {
  offset: number;
  key: string;
  value: string | null;
}

async function readAll(topic: string): Promise<Read[]> {
  const records: Read[] = [];
  let offset = (await describeTopic(topic)).partitions[0]!.logStartOffset;
  for (let round = 0; round < 1_000; round++) {
    const response = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxRecords=10000&maxBytes=8388608`);
    expect(response.status, response.text).toBe(200);
    for (const record of response.body.records) records.push({ offset: record.offset, key: record.key, value: record.value });
    if (response.body.nextOffset >= response.body.highWatermark) break;
    offset = response.body.nextOffset;
  }
  return records;
}

describe("compaction", () => {
  it("keeps exactly the last value of each key across the sealed segments, at its original offset", async () => {
    const topic = uniqueTopic("compaction");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "segment.bytes": "65536" } });
    const keys = 12;
    const versions = 40;
    const written: Read[] = [];
    for (let version = 0; version < versions; version++) {
      const records = Array.from({ length: keys }, (_, key) => ({ key: `k${key}`, value: `v${version}:${"p".repeat(200)}` }));
      await produceRetrying(topic, { records, acks: 1 });
      for (const record of records) written.push({ offset: written.length, key: record.key, value: record.value });
    }
    await eventually(async () => (await describeTopic(topic)).partitions[0]!.storage.r2Segments > 0);
    // A config change runs the cleaner at once.
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "delete.retention.ms": "60000" } })).status).toBe(200);
    const read = await readAll(topic);
    const partition = (await describeTopic(topic)).partitions[0]!;
    expect(partition.highWatermark).toBe(keys * versions);
    // Every record read is exactly the one written at that offset.
    for (const record of read) expect(record).toEqual(written[record.offset]);
    // Nothing written last for its key was lost.
    const lastOffsetOf = new Map(written.map((record) => [record.key, record.offset]));
    for (const offset of lastOffsetOf.values()) expect(read.some((record) => record.offset === offset)).toBe(true);
    // The sealed part was compacted: the first ten versions of every key are sealed (64 KiB
    // segments hold ~280 of these records) and superseded by later sealed versions, so gone.
    expect(read.filter((record) => record.offset < keys * 10)).toEqual([]);
    expect(read.length).toBeLessThan(written.length / 2);
    const offsets = read.map((record) => record.offset);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
  });

  it("drops a tombstone older than delete.retention.ms, and keeps a younger one", async () => {
    const topic = uniqueTopic("compaction-tombstones");
    await createTopic(topic, { configs: { "cleanup.policy": "compact", "segment.bytes": "65536", "delete.retention.ms": "3600000" } });
    const old = Date.now() - 7_200_000;
    await produceRetrying(topic, {
      records: [
        { key: "gone", value: "x" },
        { key: "gone", value: null, timestamp: old },
        { key: "kept", value: "y" },
        { key: "kept", value: null },
      ],
      acks: 1,
    });
    // Filler with other keys, so the tombstones end up sealed.
    for (let round = 0; round < 30; round++) {
      await produceRetrying(topic, { records: Array.from({ length: 10 }, (_, index) => ({ key: `f${index}`, value: "f".repeat(500) })), acks: 1 });
    }
    await eventually(async () => (await describeTopic(topic)).partitions[0]!.storage.r2Segments > 0);
    expect((await api("PATCH", `/v1/topics/${topic}/configs`, { configs: { "min.insync.replicas": "1" } })).status).toBe(200);
    const read = await readAll(topic);
    expect(read.filter((record) => record.key === "gone")).toEqual([]);
    expect(read.filter((record) => record.key === "kept")).toEqual([{ offset: 3, key: "kept", value: null }]);
  });
});
