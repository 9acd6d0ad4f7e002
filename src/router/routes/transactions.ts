import { Hono } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax, transactionalIdLengthMax } from "../../limits.ts";
import { groupStub, transactionCoordinatorStub, transactionIndexStub } from "../../contracts/stubs.ts";
import { clusterResourceName } from "../../auth/acl.ts";
import { topicMetadata } from "../../data-plane/metadata-cache.ts";
import { addPartitionsSchema, endTransactionSchema, initTransactionSchema, transactionOffsetsSchema } from "../../protocol/transaction-schemas.ts";
import { authorize, authorizeTopics, may, principalOf } from "../authorize.ts";
import type { RouterEnv } from "../context.ts";
import { routeQuery } from "../query.ts";
import { readJsonBody } from "../request-body.ts";
import { groupParam } from "./groups.ts";

/** A transactional id from the path: any string of 1 to transactionalIdLengthMax characters (Kafka restricts none). */
function transactionalIdParam(value: string): string {
  if (value.length === 0 || value.length > transactionalIdLengthMax) {
    throw new TributaryError("INVALID_REQUEST", `a transactional id has 1 to ${transactionalIdLengthMax} characters`);
  }
  return value;
}

/** Every partition named exists (Kafka's AddPartitionsToTxn answers UNKNOWN_TOPIC_OR_PARTITION for the others). */
async function requirePartitions(env: Env, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
  for (const topic of new Set(partitions.map((entry) => entry.topic))) {
    const meta = await topicMetadata(env, topic);
    const missing = partitions.find((entry) => entry.topic === topic && entry.partition >= meta.partitions.length);
    if (missing) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic} has no partition ${missing.partition}`);
  }
}

/**
 * Transactions (issue 28; docs/api.md, Transactions; docs/transactions.md): a transactional
 * producer's init, partitions, offsets and end, each a call to its transactional id's
 * coordinator; the listing, a description, and an admin's abort. `write` on the transactional
 * id uses it (Kafka's TRANSACTIONAL_ID resource), with `write` on the topics it adds and
 * `read` on the group and topics whose offsets it commits, as Kafka asks.
 */
export const transactionRoutes = new Hono<RouterEnv>()
  .get("/", async (c) => {
    routeQuery(c.req.url, []);
    const principal = principalOf(c);
    const listed = unwrap(await transactionIndexStub(c.env).listTransactions());
    return c.json({ ...listed, transactions: listed.transactions.filter((entry) => may(principal, "transactionalId", entry.transactionalId, "describe")) });
  })
  .get("/:transactionalId", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "describe");
    return c.json(unwrap(await transactionCoordinatorStub(c.env, id).describe(id)));
  })
  .post("/:transactionalId/init", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const body = await readJsonBody(c.req.raw, initTransactionSchema, { maxBytes: adminRequestBytesMax, optional: true });
    return c.json(unwrap(await transactionCoordinatorStub(c.env, id).init(id, body.transactionTimeoutMs)));
  })
  .post("/:transactionalId/partitions", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { producerId, producerEpoch, partitions } = await readJsonBody(c.req.raw, addPartitionsSchema, { maxBytes: adminRequestBytesMax });
    authorizeTopics(c, partitions.map((entry) => entry.topic), "write");
    await requirePartitions(c.env, partitions);
    return c.json(unwrap(await transactionCoordinatorStub(c.env, id).addPartitions(id, { producerId, producerEpoch }, partitions)));
  })
  .post("/:transactionalId/offsets", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { groupId, ...commit } = await readJsonBody(c.req.raw, transactionOffsetsSchema, { maxBytes: adminRequestBytesMax });
    const group = groupParam(groupId);
    authorize(c, "group", group, "read");
    authorizeTopics(c, commit.offsets.map((position) => position.topic), "read");
    // The group joins the transaction first (its marker comes at the end), then holds the offsets.
    const identity = unwrap(await transactionCoordinatorStub(c.env, id).addOffsets(id, { producerId: commit.producerId, producerEpoch: commit.producerEpoch }, group));
    unwrap(await groupStub(c.env, group).commitTransactional(group, commit));
    return c.json(identity);
  })
  .post("/:transactionalId/end", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { producerId, producerEpoch, commit } = await readJsonBody(c.req.raw, endTransactionSchema, { maxBytes: adminRequestBytesMax });
    return c.json(unwrap(await transactionCoordinatorStub(c.env, id).end(id, { producerId, producerEpoch }, commit)));
  })
  .post("/:transactionalId/abort", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    // An operator's tool (Kafka's kafka-transactions.sh abort): alter on the cluster.
    authorize(c, "cluster", clusterResourceName, "alter");
    return c.json(unwrap(await transactionCoordinatorStub(c.env, id).abort(id)));
  });
