/**
 * Share groups for the fake server, as docs/api.md's "Share groups" describes them: fetch
 * acquires records under a lease (acknowledgements of earlier leases may ride along, each
 * partition's all applied or none), acknowledge, lock expiry, delivery counts up to
 * `delivery.count.limit`, and the admin routes (list, describe, configs, reset, delete).
 * Time: `expireLeases()` lets every lock run out at once, so tests need no waiting.
 */
import type { DecodedRecord } from "../../../../src/protocol/record-batch.ts";
import { apiError, base64Record, json } from "./responses.ts";

type AckType = "accept" | "release" | "reject";

interface RecordState {
  /** accepted: done for the group; archived: rejected, or delivered `delivery.count.limit` times. */
  state: "available" | "acquired" | "accepted" | "archived";
  lease?: string;
  deliveryCount: number;
}

interface SharePartition {
  topic: string;
  partition: number;
  startOffset: number;
  /** The first offset never fetched. */
  endOffset: number;
  records: Map<number, RecordState>;
}

interface ShareGroup {
  configs: Record<string, string>;
  partitions: Map<string, SharePartition>;
  /** Lease → expiry (ms since the epoch). */
  leases: Map<string, number>;
}

export interface AppliedAck {
  group: string;
  topic: string;
  partition: number;
  offset: number;
  type: AckType;
  via: "fetch" | "acknowledge";
}

interface Ack {
  lease?: string;
  topic: string;
  partition: number;
  offsets: number[];
  type: AckType;
}

const defaults = { "record.lock.duration.ms": "30000", "delivery.count.limit": "5", "auto.offset.reset": "latest" };

export class FakeShareGroups {
  readonly groups = new Map<string, ShareGroup>();
  /** Every acknowledgement applied, in order. */
  readonly applied: AppliedAck[] = [];
  readonly #records: (topic: string, partition: number) => DecodedRecord[] | undefined;
  readonly #partitions: (topic: string) => number | undefined;
  #leases = 0;

  constructor(log: { records(topic: string, partition: number): DecodedRecord[] | undefined; partitions(topic: string): number | undefined }) {
    this.#records = log.records;
    this.#partitions = log.partitions;
  }

  /** Every lease runs out now: its records are available again (or archived at the delivery limit). */
  expireLeases(): void {
    for (const group of this.groups.values()) for (const lease of group.leases.keys()) group.leases.set(lease, 0);
  }

  route(method: string, parts: string[], body: () => any): Response {
    const [name, sub, leaf] = parts;
    if (name === undefined && method === "GET") return json(200, { groups: [...this.groups.keys()].sort().map((group) => ({ group })) });
    if (name === undefined) return apiError(405, "INVALID_REQUEST", "method not allowed");
    if (sub === "fetch" && method === "POST") return this.#fetch(name, body());
    if (sub === "configs" && method === "PATCH") {
      const group = this.#group(name, true)!;
      for (const [key, value] of Object.entries(body().configs as Record<string, string | null>)) {
        if (value === null) delete group.configs[key];
        else group.configs[key] = String(value);
      }
      return json(200, { group: name, configs: { ...defaults, ...group.configs } });
    }
    const group = this.#group(name, false);
    if (group === undefined) return apiError(404, "GROUP_ID_NOT_FOUND", `no share group ${name}`);
    this.#expire(group);
    if (sub === "acknowledge" && method === "POST") {
      const { lease, acknowledgements } = body();
      return json(200, { results: this.#acknowledge(name, group, (acknowledgements as Ack[]).map((ack) => ({ ...ack, lease })), "acknowledge") });
    }
    if (sub === undefined && method === "GET") return json(200, this.#describe(name, group));
    const busy = [...group.partitions.values()].some((p) => [...p.records.values()].some((r) => r.state === "acquired"));
    if (sub === undefined && method === "DELETE") {
      if (busy) return apiError(409, "NON_EMPTY_GROUP", "records are acquired");
      this.groups.delete(name);
      return new Response(null, { status: 204 });
    }
    if (sub === "offsets" && leaf === "reset" && method === "POST") {
      const { topic, to, dryRun } = body();
      const count = this.#partitions(topic);
      if (count === undefined) return apiError(404, "UNKNOWN_TOPIC_OR_PARTITION", `no topic ${topic}`);
      if (busy && dryRun !== true) return apiError(409, "NON_EMPTY_GROUP", "records are acquired");
      const offsets = Array.from({ length: count }, (_, partition) => {
        const end = this.#records(topic, partition)!.length;
        return { topic, partition, offset: to === "earliest" ? 0 : to === "latest" ? end : Math.min(to.offset, end) };
      });
      if (dryRun !== true) {
        for (const { partition, offset } of offsets) group.partitions.set(`${topic}/${partition}`, { topic, partition, startOffset: offset, endOffset: offset, records: new Map() });
      }
      return json(200, { offsets });
    }
    return apiError(404, "NOT_FOUND", `no route for ${method} /v1/share-groups/${parts.join("/")}`);
  }

  #group(name: string, create: boolean): ShareGroup | undefined {
    let group = this.groups.get(name);
    if (group === undefined && create) {
      group = { configs: {}, partitions: new Map(), leases: new Map() };
      this.groups.set(name, group);
    }
    return group;
  }

  #config(group: ShareGroup, name: keyof typeof defaults): string {
    return group.configs[name] ?? defaults[name];
  }

  #describe(name: string, group: ShareGroup) {
    const partitions = [...group.partitions.values()].map((p) => {
      const states = [...p.records.values()];
      const count = (state: RecordState["state"]) => states.filter((r) => r.state === state).length;
      // As the server's (src/share/share-partition.ts, summary): available counts the records never fetched too.
      const highWatermark = Math.max(p.endOffset, this.#records(p.topic, p.partition)?.length ?? 0);
      return {
        topic: p.topic,
        partition: p.partition,
        startOffset: p.startOffset,
        endOffset: p.endOffset,
        highWatermark,
        available: count("available") + highWatermark - p.endOffset,
        acquired: count("acquired"),
        done: count("accepted") + count("archived"),
        archived: count("archived"),
      };
    });
    return { group: name, configs: { ...defaults, ...group.configs }, partitions };
  }

  /** Locks that ran out: their records available again, or archived at the delivery limit. */
  #expire(group: ShareGroup): void {
    const now = Date.now();
    const limit = Number(this.#config(group, "delivery.count.limit"));
    for (const [lease, expiresAt] of group.leases) {
      if (expiresAt > now) continue;
      group.leases.delete(lease);
      for (const p of group.partitions.values()) {
        for (const record of p.records.values()) {
          if (record.lease !== lease || record.state !== "acquired") continue;
          record.state = record.deliveryCount >= limit ? "archived" : "available";
          record.lease = undefined;
        }
      }
    }
  }

  /** Per partition: every offset acquired under its lease (not expired), then all applied; else INVALID_RECORD_STATE and nothing. */
  #acknowledge(name: string, group: ShareGroup, acks: Ack[], via: AppliedAck["via"]) {
    const limit = Number(this.#config(group, "delivery.count.limit"));
    const byPartition = new Map<string, Ack[]>();
    for (const ack of acks) byPartition.set(`${ack.topic}/${ack.partition}`, [...(byPartition.get(`${ack.topic}/${ack.partition}`) ?? []), ack]);
    return [...byPartition.values()].map((partitionAcks) => {
      const { topic, partition } = partitionAcks[0]!;
      const p = group.partitions.get(`${topic}/${partition}`);
      const held = partitionAcks.every((ack) =>
        ack.offsets.every((offset) => {
          const record = p?.records.get(offset);
          return record?.state === "acquired" && ack.lease !== undefined && record.lease === ack.lease && group.leases.has(ack.lease);
        }),
      );
      if (!held) return { topic, partition, error: { code: "INVALID_RECORD_STATE", message: "the records are not held by that lease" } };
      for (const ack of partitionAcks) {
        for (const offset of ack.offsets) {
          const record = p!.records.get(offset)!;
          record.lease = undefined;
          // release makes it available again, unless it reached the delivery limit.
          record.state = ack.type === "accept" ? "accepted" : ack.type === "release" && record.deliveryCount < limit ? "available" : "archived";
          this.applied.push({ group: name, topic, partition, offset, type: ack.type, via });
        }
      }
      advanceStart(p!);
      return { topic, partition };
    });
  }

  #fetch(name: string, request: { topics: string[]; maxRecords?: number; acknowledgements?: Ack[]; encoding?: string }): Response {
    const group = this.#group(name, true)!;
    this.#expire(group);
    const results = request.acknowledgements === undefined ? undefined : this.#acknowledge(name, group, request.acknowledgements, "fetch");
    const lease = `lease-${++this.#leases}`;
    const lockMs = Number(this.#config(group, "record.lock.duration.ms"));
    const maxRecords = request.maxRecords ?? 500;
    const records: unknown[] = [];
    for (const topic of request.topics) {
      const count = this.#partitions(topic);
      if (count === undefined) return apiError(404, "UNKNOWN_TOPIC_OR_PARTITION", `no topic ${topic}`);
      for (let partition = 0; partition < count; partition++) {
        const log = this.#records(topic, partition)!;
        const key = `${topic}/${partition}`;
        let p = group.partitions.get(key);
        if (p === undefined) {
          const start = this.#config(group, "auto.offset.reset") === "earliest" ? 0 : log.length;
          p = { topic, partition, startOffset: start, endOffset: start, records: new Map() };
          group.partitions.set(key, p);
        }
        for (const record of log) {
          if (records.length >= maxRecords) break;
          if (record.offset < p.startOffset) continue;
          let state = p.records.get(record.offset);
          if (state === undefined) {
            state = { state: "available", deliveryCount: 0 };
            p.records.set(record.offset, state);
            p.endOffset = Math.max(p.endOffset, record.offset + 1);
          }
          if (state.state !== "available") continue;
          state.state = "acquired";
          state.lease = lease;
          state.deliveryCount++;
          records.push({ ...base64Record(topic, partition, record), deliveryCount: state.deliveryCount });
        }
      }
    }
    const leaseExpiresAt = Date.now() + lockMs;
    if (records.length > 0) group.leases.set(lease, leaseExpiresAt);
    return json(200, { records, lease, leaseExpiresAt, ...(results === undefined ? {} : { results }) });
  }
}

/** The start moves past every record accepted or archived, as the server's does (docs/api.md). */
function advanceStart(p: SharePartition): void {
  for (let state = p.records.get(p.startOffset); state?.state === "accepted" || state?.state === "archived"; state = p.records.get(p.startOffset)) {
    p.records.delete(p.startOffset);
    p.startOffset++;
  }
}
