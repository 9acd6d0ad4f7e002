import { Hono } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax, groupIdLengthMax } from "../../limits.ts";
import type { GroupOffset } from "../../contracts/group-coordinator-api.ts";
import type { OffsetQuery } from "../../contracts/replica-api.ts";
import { controllerStub, groupStub } from "../../contracts/stubs.ts";
import {
  commitOffsetsSchema,
  deleteOffsetsSchema,
  heartbeatSchema,
  joinGroupSchema,
  pollSchema,
  resetOffsetsSchema,
  type ResetTarget,
} from "../../protocol/schemas.ts";
import type { TopicMetadata } from "../../topics/topic-metadata.ts";
import { authorize, authorizeTopics, may, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { pollGroup } from "../group-poll.ts";
import { topicMetadata, withTopic } from "../../data-plane/metadata-cache.ts";
import { listOffset } from "../../data-plane/partition-reads.ts";
import { routeQueries, routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";

/** A group name from the path: any string of 1 to groupIdLengthMax characters (Kafka restricts none). */
export function groupParam(value: string): string {
  if (value.length === 0 || value.length > groupIdLengthMax) {
    throw new TributaryError("INVALID_REQUEST", `a group name has 1 to ${groupIdLengthMax} characters`);
  }
  return value;
}

/** Every Tributary group is a Kafka "consumer" group (KIP-848's type), whatever its members speak. */
const groupType = "consumer";

/** A comma-separated filter (Kafka matches group states and types in any case); absent or empty: no filter. */
function lowerCaseList(text: string | undefined): Set<string> | undefined {
  const names = (text ?? "").split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  return names.length === 0 ? undefined : new Set(names);
}

/** Consumer groups (API.md): membership, poll, offsets, describe, list, reset, delete (groups and offsets). */
export const groupRoutes = new Hono<RouterEnv>()
  .get("/", async (c) => {
    const query = routeQuery(c.req.url, routeQueries.listGroups);
    const states = lowerCaseList(query.states);
    const types = lowerCaseList(query.types);
    const principal = principalOf(c);
    const groups = unwrap(await controllerStub(c.env).listGroups())
      .filter((entry) => may(principal, "group", entry.group, "describe"))
      .filter((entry) => states === undefined || states.has(entry.state.toLowerCase()))
      .filter(() => types === undefined || types.has(groupType));
    return c.json({ groups });
  })
  .post("/:group/members", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, joinGroupSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, body.topics, "read");
    const { memberId, ...settings } = body;
    const joined = unwrap(await groupStub(c.env, group).join(group, { ...settings, chosenMemberId: memberId, host: clientHost(c.req.raw) }));
    return c.json(joined, 201);
  })
  .post("/:group/members/:memberId/heartbeat", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, heartbeatSchema, { maxBytes: adminRequestBytesMax });
    if (body.topics !== undefined) authorizeTopics(c, body.topics, "read");
    return c.json(unwrap(await groupStub(c.env, group).heartbeat(group, c.req.param("memberId"), body)));
  })
  .post("/:group/members/:memberId/poll", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, pollSchema, { maxBytes: adminRequestBytesMax });
    const { fetchedBytes, ...answer } = await pollGroup(c.env, group, c.req.param("memberId"), body, (topics) => authorizeTopics(c, topics, "read"));
    c.set("fetchedBytes", fetchedBytes);
    return c.json(answer);
  })
  .delete("/:group/members/:memberId", async (c) => {
    const query = routeQuery(c.req.url, ["static"]);
    if (query.static !== undefined && query.static !== "true" && query.static !== "false") throw new TributaryError("INVALID_REQUEST", "static is true or false");
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    unwrap(await groupStub(c.env, group).leave(group, c.req.param("memberId"), { forNow: query.static === "true" }));
    return c.body(null, 204);
  })
  .post("/:group/offsets", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, commitOffsetsSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, body.offsets.map((position) => position.topic), "read");
    unwrap(await groupStub(c.env, group).commit(group, body));
    return c.body(null, 204);
  })
  .get("/:group/offsets", async (c) => {
    const { requireStable } = routeQuery(c.req.url, ["requireStable"]);
    if (requireStable !== undefined && requireStable !== "true" && requireStable !== "false") throw new TributaryError("INVALID_REQUEST", "requireStable is true or false");
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "describe");
    const principal = principalOf(c);
    const committed = unwrap(await groupStub(c.env, group).offsets(group, { requireStable: requireStable === "true" })).filter((entry) => may(principal, "topic", entry.topic, "describe"));
    return c.json({ offsets: await withHighWatermarks(c.env, committed) });
  })
  .post("/:group/offsets/reset", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, resetOffsetsSchema, { maxBytes: adminRequestBytesMax });
    authorize(c, "topic", body.topic, "read");
    const offsets = await withTopic(c.env, body.topic, async (topic) => {
      const resolved = await resolveReset(c.env, topic, body.to, resetPartitions(topic, body.partitions));
      if (body.dryRun === true) return resolved.map(({ partition, offset }) => ({ topic: topic.name, partition, offset }));
      return unwrap(await groupStub(c.env, group).resetOffsets(group, { topic: topic.name, topicId: topic.topicId, offsets: resolved }));
    });
    return c.json({ offsets });
  })
  .post("/:group/offsets/delete", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "delete");
    const body = await readJsonBody(c.req.raw, deleteOffsetsSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, body.partitions.map(({ topic }) => topic), "read");
    return c.json(unwrap(await groupStub(c.env, group).deleteOffsets(group, body)));
  })
  .get("/:group", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "describe");
    return c.json(unwrap(await groupStub(c.env, group).describe(group)));
  })
  .delete("/:group", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "delete");
    unwrap(await groupStub(c.env, group).deleteGroup(group));
    return c.body(null, 204);
  });

/**
 * Adds each partition's high watermark from its leader, and `lag` = highWatermark − committed
 * offset (null where nothing is committed). A topic this router cannot find as the
 * coordinator's incarnation (deleted a moment ago) is left out.
 */
async function withHighWatermarks(env: Env, committed: readonly GroupOffset[]) {
  const byTopic = new Map<string, GroupOffset[]>();
  for (const entry of committed) byTopic.set(entry.topic, [...(byTopic.get(entry.topic) ?? []), entry]);
  const topics = await Promise.all(
    [...byTopic.values()].map(async (entries) => {
      const first = entries[0]!;
      const topic = await topicFor(env, first.topic, first.topicId, Math.max(...entries.map((entry) => entry.partition)) + 1);
      if (topic === undefined) return [];
      return Promise.all(
        entries.map(async ({ topic: name, partition, offset, metadata, leaderEpoch }) => {
          const highWatermark = (await listOffset(env, topic, partition, "latest")).offset;
          return { topic: name, partition, offset, metadata, ...(leaderEpoch === undefined ? {} : { leaderEpoch }), highWatermark, lag: offset === null ? null : highWatermark - offset };
        }),
      );
    }),
  );
  return topics.flat();
}

async function topicFor(env: Env, name: string, topicId: string, partitionsNeeded: number): Promise<TopicMetadata | undefined> {
  for (const refresh of [false, true]) {
    try {
      const topic = await topicMetadata(env, name, { refresh });
      if (topic.topicId === topicId && topic.partitions.length >= partitionsNeeded) return topic;
    } catch (error) {
      if (!(error instanceof TributaryError) || error.code !== "UNKNOWN_TOPIC_OR_PARTITION") throw error;
    }
  }
  return undefined;
}

/**
 * The client's address as the router sees it, for describe: Cloudflare's CF-Connecting-IP
 * (wrangler dev sets it too; a service binding's request has none: null). A label for people,
 * not an identity.
 */
export function clientHost(request: Request): string | null {
  return request.headers.get("CF-Connecting-IP")?.trim() || null;
}

/** The partitions a reset names (all of the topic's when it names none); one the topic lacks is refused, nothing written. */
export function resetPartitions(topic: TopicMetadata, named: readonly number[] | undefined): number[] {
  const all = topic.partitions.map(({ partition }) => partition);
  if (named === undefined) return all;
  const missing = named.filter((partition) => partition >= all.length);
  if (missing.length > 0) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic.name} has no partition ${missing.join(", ")}`, { partitions: missing });
  }
  return [...named].sort((a, b) => a - b);
}

/**
 * The offset each given partition of the topic is reset to: its log start, its high watermark,
 * the first offset at or after a timestamp (the high watermark when none is), or a given
 * offset clamped into [logStartOffset, highWatermark] (as Kafka's kafka-consumer-groups does).
 */
export async function resolveReset(env: Env, topic: TopicMetadata, to: ResetTarget, partitions: readonly number[]): Promise<{ partition: number; offset: number }[]> {
  return Promise.all(
    partitions.map(async (partition) => {
      if (typeof to === "string" || "timestamp" in to) {
        const at: OffsetQuery = typeof to === "string" ? to : { timestampMs: to.timestamp };
        return { partition, offset: (await listOffset(env, topic, partition, at)).offset };
      }
      const [earliest, latest] = await Promise.all([
        listOffset(env, topic, partition, "earliest"),
        listOffset(env, topic, partition, "latest"),
      ]);
      return { partition, offset: Math.min(Math.max(to.offset, earliest.offset), latest.offset) };
    }),
  );
}
