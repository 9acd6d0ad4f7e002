/**
 * An in-memory stand-in for the Tributary Worker, answering the HTTP routes the client uses
 * as API.md and docs/api.md describe them: topics, binary produce and fetch, offsets, and
 * consumer groups over the real group core (src/group). It stores what the client encodes
 * (RecordBatch v2 bytes) and serves it back, so a test sees the client's bytes end to end.
 *
 * Tokens: with `token` set, requests need it or a token the fake created (fake-tokens.ts),
 * and a scoped token is held to its rules.
 *
 * Faults: `failNext` answers the next matching request with an error, or drops it (no answer)
 * before or after applying it — a "dropped response". `down` refuses every connection as
 * Node's fetch does (ECONNREFUSED) until it is set back; `forgetMembers` is a restart that
 * lost the groups' members but kept their committed offsets.
 */
import type { Operation } from "../../../../src/auth/acl.ts";
import { ConsumerGroup, type Assignment } from "../../../../src/group/index.ts";
import { fetchHeaders } from "../../../../src/protocol/content-types.ts";
import { setBaseOffset, splitBatches, type DecodedRecord } from "../../../../src/protocol/record-batch.ts";
import { decodeRecordBatch } from "../../../../src/protocol/record-batch-decode.ts";
import { FakeShareGroups } from "./fake-share-groups.ts";
import { FakeStreams } from "./fake-streams.ts";
import { FakeTokens, type FakePrincipal } from "./fake-tokens.ts";
import { apiError, base64Record, json } from "./responses.ts";

interface StoredBatch {
  bytes: Uint8Array;
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  baseSequence: number;
}

interface FakeTopic {
  name: string;
  topicId: string;
  configs: Record<string, string>;
  logs: StoredBatch[][];
}

interface FakeGroup {
  core: ConsumerGroup;
  committed: Map<string, number>;
  autoOffsetReset: Map<string, "earliest" | "latest">;
}

export type Fault =
  | { kind: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "drop-before" }
  | { kind: "drop-after" }
  | { kind: "delay"; ms: number };

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: Uint8Array;
}


class HttpError extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super("http error");
    this.response = response;
  }
}

export class FakeServer {
  readonly topics = new Map<string, FakeTopic>();
  readonly groups = new Map<string, FakeGroup>();
  readonly requests: RecordedRequest[] = [];
  readonly #faults: { match: (request: RecordedRequest) => boolean; fault: Fault }[] = [];
  #nextProducerId = 1000;
  #topicIds = 0;
  /** Overrides the heartbeat interval the group core answers, so heartbeat tests need no long waits. */
  heartbeatIntervalMs: number | undefined;
  /** Set to a token to require `Authorization: Bearer <token>` (the admin token) or a token created here. */
  token: string | undefined;
  readonly tokens = new FakeTokens();
  /** SSE and WebSocket streams over the stored batches (fake-streams.ts). */
  readonly streams = new FakeStreams({
    log: (topic, partition) => this.topics.get(topic)?.logs[partition],
    partitions: (topic) => this.topics.get(topic)?.logs.length,
  });

  /** Share groups over the stored batches (fake-share-groups.ts). */
  readonly shareGroups = new FakeShareGroups({
    records: (topic, partition) => (this.topics.get(topic)?.logs[partition] === undefined ? undefined : this.records(topic, partition)),
    partitions: (topic) => this.topics.get(topic)?.logs.length,
  });

  /** While true, every request fails as a refused connection does under Node's fetch. */
  down = false;
  /** Refuses this many requests more, as `down` does, then answers again (an outage of a known length, free of timing). */
  downForRequests = 0;
  /** "METHOD /path" of each request refused while down. */
  readonly refused: string[] = [];

  /** The fetch to give the client. */
  readonly fetch = (request: Request) => this.#handle(request);

  /** Every group forgets its members (their ids now unknown) and keeps its committed offsets. */
  forgetMembers(): void {
    for (const group of this.groups.values()) group.core = new ConsumerGroup({ generateMemberId: () => crypto.randomUUID() });
  }

  failNext(match: (request: RecordedRequest) => boolean, fault: Fault): void {
    this.#faults.push({ match, fault });
  }

  createTopic(name: string, partitions = 1, configs: Record<string, string> = {}): FakeTopic {
    const topic = { name, topicId: `id-${++this.#topicIds}`, configs, logs: Array.from({ length: partitions }, () => []) };
    this.topics.set(name, topic);
    return topic;
  }

  /** Every record of a partition, decoded. */
  records(topic: string, partition: number): DecodedRecord[] {
    return (this.topics.get(topic)?.logs[partition] ?? []).flatMap((batch) => decodeRecordBatch(batch.bytes).records);
  }

  requestsTo(pattern: RegExp, method?: string): RecordedRequest[] {
    return this.requests.filter((request) => pattern.test(request.path) && (method === undefined || request.method === method));
  }

  async #handle(request: Request): Promise<Response> {
    if (request.signal.aborted) throw request.signal.reason; // as fetch does
    const url = new URL(request.url);
    if (this.down || this.downForRequests > 0) {
      this.downForRequests = Math.max(0, this.downForRequests - 1);
      this.refused.push(`${request.method} ${url.pathname}`);
      const cause = Object.assign(new Error(`connect ECONNREFUSED ${url.host}`), { code: "ECONNREFUSED" });
      throw new TypeError("fetch failed", { cause });
    }
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: new Uint8Array(await request.arrayBuffer()),
    };
    this.requests.push(recorded);
    const index = this.#faults.findIndex((entry) => entry.match(recorded));
    const fault = index >= 0 ? this.#faults.splice(index, 1)[0]!.fault : undefined;
    if (fault?.kind === "drop-before") throw new TypeError("fetch failed (dropped by the fake)");
    if (fault?.kind === "error") return json(fault.status, fault.body, fault.headers);
    if (fault?.kind === "delay") await new Promise((resolve) => setTimeout(resolve, fault.ms));
    let response: Response;
    try {
      response = this.#stream(request, url, recorded) ?? this.#route(recorded);
    } catch (error) {
      if (error instanceof HttpError) response = error.response;
      else throw error;
    }
    if (fault?.kind === "drop-after") throw new TypeError("fetch failed (response dropped by the fake)");
    if (recorded.path.endsWith("/poll") && response.ok) await new Promise((resolve) => setTimeout(resolve, 5));
    // A share fetch waits a little, as a long poll would: a consumer with nothing to do does not spin.
    if (/^\/v1\/share-groups\/[^/]+\/fetch$/.test(recorded.path) && response.ok) await new Promise((resolve) => setTimeout(resolve, 5));
    return response;
  }

  /** An SSE request (docs/api.md, "Streaming reads"), authenticated by its header or `?access_token=`; else undefined. */
  #stream(request: Request, url: URL, recorded: RecordedRequest): Response | undefined {
    if (request.method !== "GET" || request.headers.get("accept") !== "text/event-stream") return undefined;
    const accessToken = url.searchParams.get("access_token");
    const headers = new Headers(request.headers);
    if (accessToken !== null) headers.set("authorization", `Bearer ${accessToken}`);
    const refused = this.#route({ ...recorded, method: "HEAD", headers });
    if (!refused.ok) return refused;
    const [, , , name, sub, partition] = url.pathname.split("/").map(decodeURIComponent);
    if (sub === "records") return this.streams.topicSse(name!, url, request.headers, request.signal);
    return this.streams.partitionSse(name!, Number(partition), url, request.headers, request.signal);
  }

  #route(request: RecordedRequest): Response {
    const principal: FakePrincipal | undefined =
      this.token === undefined ? { kind: "admin" } : this.tokens.authenticate(request.headers.get("authorization"), this.token);
    if (principal === undefined) return apiError(401, "UNAUTHENTICATED", "a valid bearer token is required");
    const refused = this.#refuse(request, principal);
    if (refused !== undefined) return refused;
    const parts = request.path.split("/").slice(2).map(decodeURIComponent); // after "/v1"
    const body = () => JSON.parse(new TextDecoder().decode(request.body)) as any;
    const [resource, name, sub, partitionText, leaf] = parts;
    if (resource === "producers" && request.method === "POST") {
      return json(200, { producerId: this.#nextProducerId++, producerEpoch: 0 });
    }
    if (resource === "tokens") return this.tokens.route(request.method, name, principal, body);
    if (resource === "topics") {
      if (name === undefined) {
        if (request.method === "GET") {
          const topics = [...this.topics.values()].map((t) => ({ name: t.name, partitions: t.logs.length, replicationFactor: 1 }));
          return json(200, { topics: topics.sort((a, b) => (a.name < b.name ? -1 : 1)) });
        }
        const { name: topicName, partitions = 1, configs = {} } = body();
        if (this.topics.has(topicName)) return apiError(409, "TOPIC_ALREADY_EXISTS", `topic ${topicName} exists`);
        return json(201, this.#view(this.createTopic(topicName, partitions, configs)));
      }
      const topic = this.topics.get(name);
      if (!topic) return apiError(404, "UNKNOWN_TOPIC_OR_PARTITION", `no topic ${name}`);
      if (sub === "write-tokens" && request.method === "POST") return this.tokens.mintWriteToken(principal, name, body().ttlMs);
      if (sub === "read-tokens" && request.method === "POST") return this.tokens.mintWriteToken(principal, name, body().ttlMs, Date.now(), "read");
      if (request.method === "HEAD" && sub === "records") return json(200, {}); // a topic stream's checks passed (#stream)
      if (sub === undefined && request.method === "GET") return json(200, this.#view(topic));
      if (sub === undefined && request.method === "DELETE") {
        this.topics.delete(name);
        for (const group of this.groups.values()) group.core.removeTopic(name); // as the coordinator is told
        return new Response(null, { status: 204 });
      }
      if (sub === "configs") {
        Object.assign(topic.configs, body().configs);
        return json(200, this.#view(topic));
      }
      if (sub === "partitions" && partitionText === undefined) {
        const { count } = body();
        while (topic.logs.length < count) topic.logs.push([]);
        return json(200, this.#view(topic));
      }
      const partition = Number(partitionText);
      const log = topic.logs[partition];
      if (!log) return apiError(404, "UNKNOWN_TOPIC_OR_PARTITION", `topic ${name} has no partition ${partitionText}`);
      if (request.method === "HEAD") return json(200, {}); // a partition stream's checks passed (#stream)
      if (leaf === "records" && request.method === "POST") return this.#produce(log, partition, request);
      if (leaf === "records" && request.method === "GET") return this.#fetch(log, request);
      if (leaf === "offsets") {
        const at = request.query.get("at");
        return json(200, { offset: at === "earliest" ? 0 : endOf(log) });
      }
    }
    if (resource === "groups") return this.#groups(request, parts.slice(1), body);
    if (resource === "share-groups") return this.shareGroups.route(request.method, parts.slice(1), body);
    return apiError(404, "NOT_FOUND", `no route for ${request.method} ${request.path}`);
  }

  /** A scoped token's 403, as the router's authorization answers before any work. */
  #refuse(request: RecordedRequest, principal: FakePrincipal): Response | undefined {
    if (principal.kind === "admin") return undefined;
    const [resource, name, sub, , leaf] = request.path.split("/").slice(2).map(decodeURIComponent);
    const method = request.method;
    if (resource === "producers") {
      const text = new TextDecoder().decode(request.body);
      return this.tokens.refuseProducerId(principal, text === "" ? undefined : (JSON.parse(text) as { topic?: string }).topic);
    }
    if (resource === "topics" && name === undefined) {
      if (method !== "POST" || this.tokens.refuse(principal, "cluster", "tributary", "create") === undefined) return undefined;
      return this.tokens.refuse(principal, "topic", JSON.parse(new TextDecoder().decode(request.body)).name, "create");
    }
    if (resource === "topics" && name !== undefined) {
      let operation: Operation = "describe";
      if (sub === "write-tokens" || (leaf === "records" && method === "POST")) operation = "write";
      else if (leaf === "records" || leaf === "offsets" || sub === "read-tokens" || sub === "records") operation = "read";
      else if (sub === "configs" || sub === "partitions") operation = "alter";
      else if (method === "DELETE") operation = "delete";
      return this.tokens.refuse(principal, "topic", name, operation);
    }
    if (resource === "groups" && name !== undefined) {
      return this.tokens.refuse(principal, "group", name, method === "DELETE" ? "delete" : method === "GET" ? "describe" : "read");
    }
    return undefined;
  }

  #view(topic: FakeTopic) {
    return {
      name: topic.name,
      topicId: topic.topicId,
      replicationFactor: 1,
      configs: { "cleanup.policy": "delete", ...topic.configs },
      partitions: topic.logs.map((log, partition) => ({
        partition,
        leader: "weur",
        replicas: ["weur"],
        isr: ["weur"],
        logStartOffset: 0,
        highWatermark: endOf(log),
      })),
    };
  }

  #produce(log: StoredBatch[], partition: number, request: RecordedRequest): Response {
    const acks = request.query.get("acks") ?? "all";
    const stored: StoredBatch[] = [];
    let next = endOf(log);
    for (const { header, start, end } of splitBatches(request.body)) {
      decodeRecordBatch(request.body, start); // checks the CRC and every record
      if (header.producerId !== -1) {
        const duplicate = log.find((batch) => batch.producerId === header.producerId && batch.baseSequence === header.baseSequence);
        if (duplicate) return json(200, { partition, baseOffset: duplicate.baseOffset, lastOffset: duplicate.lastOffset });
      }
      const bytes = request.body.slice(start, end);
      setBaseOffset(bytes, 0, next);
      stored.push({ bytes, baseOffset: next, lastOffset: next + header.recordCount - 1, producerId: header.producerId, baseSequence: header.baseSequence });
      next += header.recordCount;
    }
    const baseOffset = endOf(log);
    log.push(...stored);
    this.streams.wake();
    if (acks === "0") return json(202, {});
    return json(200, { partition, baseOffset, lastOffset: next - 1 });
  }

  #fetch(log: StoredBatch[], request: RecordedRequest): Response {
    const offset = Number(request.query.get("offset"));
    const end = endOf(log);
    if (offset < 0 || offset > end) return apiError(416, "OFFSET_OUT_OF_RANGE", `offset ${offset} is out of range`, { logStartOffset: 0, highWatermark: end });
    const maxRecords = Number(request.query.get("maxRecords") ?? 500);
    const batches: StoredBatch[] = [];
    let records = 0;
    for (const batch of log) {
      if (batch.lastOffset < offset) continue;
      const count = batch.lastOffset - batch.baseOffset + 1;
      if (batches.length > 0 && records + count > maxRecords) break;
      batches.push(batch);
      records += count;
    }
    const nextOffset = batches.length === 0 ? offset : batches.at(-1)!.lastOffset + 1;
    return new Response(new Blob(batches.map((batch) => batch.bytes)), {
      headers: {
        "content-type": "application/vnd.tributary.record-batch",
        [fetchHeaders.highWatermark]: String(end),
        [fetchHeaders.logStartOffset]: "0",
        [fetchHeaders.nextOffset]: String(nextOffset),
      },
    });
  }

  #meta(): Record<string, { partitions: number }> {
    return Object.fromEntries([...this.topics.values()].map((topic) => [topic.name, { partitions: topic.logs.length }]));
  }

  #groups(request: RecordedRequest, parts: string[], body: () => any): Response {
    const [groupId, sub, memberId, action] = parts;
    const now = Date.now();
    if (groupId === undefined) {
      const groups = [...this.groups].map(([group, entry]) => ({ group, state: entry.core.describe().state, members: entry.core.describe().members.length }));
      return json(200, { groups });
    }
    let group = this.groups.get(groupId);
    if (sub === "members" && memberId === undefined) {
      group ??= { core: new ConsumerGroup({ generateMemberId: () => crypto.randomUUID() }), committed: new Map(), autoOffsetReset: new Map() };
      this.groups.set(groupId, group);
      const request = body();
      const joined = guard(() => group!.core.join(request, this.#meta(), now));
      group.autoOffsetReset.set(joined.memberId, request.autoOffsetReset ?? "latest");
      return json(201, this.#withInterval(joined));
    }
    if (!group) return apiError(404, "GROUP_ID_NOT_FOUND", `no group ${groupId}`);
    group.core.expire(now);
    const core = group.core;
    if (sub === undefined && request.method === "GET") return json(200, { group: groupId, ...core.describe() });
    if (sub === undefined && request.method === "DELETE") {
      if (!core.isEmpty()) return apiError(409, "NON_EMPTY_GROUP", "the group has members");
      this.groups.delete(groupId);
      return new Response(null, { status: 204 });
    }
    if (sub === "members" && action === "heartbeat") return json(200, this.#withInterval(guard(() => core.heartbeat(memberId!, body(), this.#meta(), now))));
    if (sub === "members" && action === undefined && request.method === "DELETE") {
      guard(() => core.leave(memberId!));
      return new Response(null, { status: 204 });
    }
    if (sub === "members" && action === "poll") return this.#poll(group, memberId!, body(), now);
    if (sub === "offsets" && request.method === "POST" && memberId === undefined) {
      const { memberId: member, memberEpoch, offsets } = body();
      if (member === undefined && !core.isEmpty()) return apiError(409, "NON_EMPTY_GROUP", "the group has members");
      if (member !== undefined) guard(() => core.checkCommit(member, memberEpoch, offsets));
      for (const { topic, partition, offset } of offsets) group.committed.set(`${topic}/${partition}`, offset);
      return new Response(null, { status: 204 });
    }
    if (sub === "offsets" && memberId === "reset" && request.method === "POST") return this.#reset(group, body());
    if (sub === "offsets" && memberId === "delete" && request.method === "POST") return this.#deleteOffsets(group, body().partitions);
    if (sub === "offsets" && request.method === "GET") {
      const committedTopics = [...group.committed.keys()].map((key) => key.slice(0, key.lastIndexOf("/")));
      const offsets = [...new Set([...core.subscribedTopics(), ...committedTopics])].sort().flatMap((topic) =>
        (this.topics.get(topic)?.logs ?? []).map((log, partition) => {
          const offset = group!.committed.get(`${topic}/${partition}`) ?? null;
          return { topic, partition, offset, highWatermark: endOf(log), lag: offset === null ? null : endOf(log) - offset };
        }),
      );
      return json(200, { offsets });
    }
    return apiError(404, "NOT_FOUND", `no route for ${request.method} ${request.path}`);
  }

  /** API.md's reset, to earliest, latest or an offset (clamped), of `partitions` or all; `dryRun` writes nothing. */
  #reset(group: FakeGroup, { topic, to, partitions, dryRun }: any): Response {
    const logs = this.topics.get(topic)?.logs;
    if (logs === undefined || (partitions ?? []).some((partition: number) => partition >= logs.length)) {
      return apiError(404, "UNKNOWN_TOPIC_OR_PARTITION", `no topic or partition of ${topic}`);
    }
    if (dryRun !== true && !group.core.isEmpty()) return apiError(409, "NON_EMPTY_GROUP", "the group has members");
    const chosen: number[] = partitions ?? logs.map((_, partition) => partition);
    const offsets = chosen.map((partition) => {
      const end = endOf(logs[partition]!);
      return { topic, partition, offset: to === "earliest" ? 0 : to === "latest" ? end : Math.min(to.offset, end) };
    });
    if (dryRun !== true) for (const { partition, offset } of offsets) group.committed.set(`${topic}/${partition}`, offset);
    return json(200, { offsets });
  }

  /** API.md's offsets delete (Kafka's OffsetDelete): a partition of a topic the members subscribe to is refused on its own. */
  #deleteOffsets(group: FakeGroup, partitions: { topic: string; partition: number }[]): Response {
    const subscribed = new Set(group.core.isEmpty() ? [] : group.core.subscribedTopics());
    const answers = partitions.map(({ topic, partition }) => {
      if (partition >= (this.topics.get(topic)?.logs.length ?? 0)) return { topic, partition, error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message: `no partition ${partition} of ${topic}` } };
      if (subscribed.has(topic)) return { topic, partition, error: { code: "GROUP_SUBSCRIBED_TO_TOPIC", message: `members subscribe to ${topic}` } };
      group.committed.delete(`${topic}/${partition}`);
      return { topic, partition, error: null };
    });
    return json(200, { partitions: answers });
  }

  #withInterval<T extends { heartbeatIntervalMs: number }>(answer: T): T {
    return this.heartbeatIntervalMs === undefined ? answer : { ...answer, heartbeatIntervalMs: this.heartbeatIntervalMs };
  }

  #poll(group: FakeGroup, memberId: string, request: any, now: number): Response {
    const core = group.core;
    const positions: { topic: string; partition: number; offset: number }[] = request.positions ?? [];
    guard(() => core.checkCommit(memberId, request.memberEpoch, positions));
    if (request.autoCommit ?? true) for (const p of positions) group.committed.set(`${p.topic}/${p.partition}`, p.offset);
    const answer = guard(() => core.heartbeat(memberId, { memberEpoch: request.memberEpoch }, this.#meta(), now));
    const paused = new Set((request.paused ?? []).flatMap((entry: { topic: string; partitions: number[] }) => entry.partitions.map((p) => `${entry.topic}/${p}`)));
    const sent = new Map(positions.map((p) => [`${p.topic}/${p.partition}`, p.offset]));
    const maxRecords = request.maxRecords ?? 500;
    const records: unknown[] = [];
    const outPositions = answer.assignment.flatMap(({ topic, partitions }: Assignment[number]) =>
      partitions.map((partition) => {
        const key = `${topic}/${partition}`;
        const log = this.topics.get(topic)?.logs[partition] ?? [];
        const reset = group.autoOffsetReset.get(memberId) === "earliest" ? 0 : endOf(log);
        let offset = sent.get(key) ?? group.committed.get(key) ?? reset;
        if (!paused.has(key)) {
          for (const record of this.records(topic, partition)) {
            if (record.offset < offset || records.length >= maxRecords) continue;
            records.push(base64Record(topic, partition, record));
            offset = record.offset + 1;
          }
        }
        return { topic, partition, offset };
      }),
    );
    return json(200, { ...this.#withInterval(answer), records, positions: outPositions });
  }
}

function endOf(log: StoredBatch[]): number {
  return log.length === 0 ? 0 : log.at(-1)!.lastOffset + 1;
}

/** Runs a group-core call, turning its TributaryError into API.md's error answer. */
function guard<T>(body: () => T): T {
  try {
    return body();
  } catch (error) {
    const { code, message, data, status } = error as { code?: string; message: string; data?: Record<string, unknown>; status?: number };
    if (code === undefined || status === undefined) throw error;
    throw new HttpError(apiError(status, code, message, data));
  }
}
