import { Hono } from "hono";
import { unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { shareGroupIndexStub, shareGroupStub } from "../../contracts/stubs.ts";
import { shareAcknowledgeSchema, shareFetchSchema, shareGroupConfigsSchema, shareResetSchema } from "../../protocol/share-schemas.ts";
import { authorize, authorizeTopics, may, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { listOffset } from "../../data-plane/partition-reads.ts";
import { withTopic } from "../../data-plane/metadata-cache.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";
import { shareAcknowledge, sharePartitionKey } from "../../data-plane/share-acknowledge.ts";
import { callShareState } from "../../data-plane/share-state-calls.ts";
import { alterShareGroupConfigs, deleteShareGroup, describeShareGroup, refuseWhileAcquired } from "../../data-plane/share-group-admin.ts";
import { shareFetch } from "../../data-plane/share-fetch.ts";
// A share group's name follows a consumer group's rules: the two share the `group` ACL namespace.
import { groupParam, resetPartitions, resolveReset } from "./groups.ts";

/**
 * Share groups (KIP-932; docs/api.md, Share groups): fetch, acknowledge, list, describe,
 * configs, reset, delete. ACLs on the `group` resource, the namespace consumer groups use.
 */
export const shareGroupRoutes = new Hono<RouterEnv>()
  .get("/", async (c) => {
    routeQuery(c.req.url, []);
    const principal = principalOf(c);
    const names = unwrap(await shareGroupIndexStub(c.env).list()).filter((group) => may(principal, "group", group, "describe"));
    return c.json({ groups: names.map((group) => ({ group })) });
  })
  .post("/:group/fetch", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, shareFetchSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, [...body.topics, ...(body.acknowledgements ?? []).map((acknowledgement) => acknowledgement.topic)], "read");
    const { fetchedBytes, ...answer } = await shareFetch(c.env, group, body);
    c.set("fetchedBytes", fetchedBytes);
    return c.json(answer);
  })
  .post("/:group/acknowledge", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, shareAcknowledgeSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, body.acknowledgements.map((acknowledgement) => acknowledgement.topic), "read");
    return c.json({ results: await shareAcknowledge(c.env, group, body.lease, body.acknowledgements) });
  })
  .patch("/:group/configs", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "alter");
    const body = await readJsonBody(c.req.raw, shareGroupConfigsSchema, { maxBytes: adminRequestBytesMax });
    const deadLetterTopic = body.configs["dead.letter.topic"];
    // Its consumers write there on the group's behalf: whoever names it must be allowed to write it.
    if (typeof deadLetterTopic === "string") authorize(c, "topic", deadLetterTopic, "write");
    const configs = await alterShareGroupConfigs(c.env, group, body.configs);
    return c.json({ group, configs });
  })
  .post("/:group/offsets/reset", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "read");
    const body = await readJsonBody(c.req.raw, shareResetSchema, { maxBytes: adminRequestBytesMax });
    authorize(c, "topic", body.topic, "read");
    unwrap(await shareGroupStub(c.env, group).view(group)); // GROUP_ID_NOT_FOUND before anything is read
    const offsets = await withTopic(c.env, body.topic, async (topic) => {
      const resolved = await resolveReset(c.env, topic, body.to, resetPartitions(topic, body.partitions));
      const planned = resolved.map(({ partition, offset }) => ({ topic: topic.name, partition, offset }));
      if (body.dryRun === true) return planned;
      const keys = resolved.map(({ partition }) => sharePartitionKey(group, topic, partition));
      await refuseWhileAcquired(c.env, keys);
      await Promise.all(
        resolved.map(async ({ partition, offset }) => {
          const highWatermark = (await listOffset(c.env, topic, partition, "latest")).offset;
          await callShareState(c.env, topic, group, partition, (stub, key) => stub.reset(key, offset, highWatermark));
        }),
      );
      return planned;
    });
    return c.json({ offsets });
  })
  .get("/:group", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "describe");
    const principal = principalOf(c);
    return c.json(await describeShareGroup(c.env, group, (key) => may(principal, "topic", key.topic, "describe")));
  })
  .delete("/:group", async (c) => {
    routeQuery(c.req.url, []);
    const group = groupParam(c.req.param("group"));
    authorize(c, "group", group, "delete");
    await deleteShareGroup(c.env, group);
    return c.body(null, 204);
  });

