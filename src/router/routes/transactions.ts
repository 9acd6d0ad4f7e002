import { Hono, type Context } from "hono";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax, transactionalIdLengthMax } from "../../limits.ts";
import { groupStub, transactionIndexStub } from "../../contracts/stubs.ts";
import { coordinatorCalls } from "../../data-plane/coordinator-calls.ts";
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

type PartitionFailure = { topic: string; partition: number; code: "TOPIC_AUTHORIZATION_FAILED" | "UNKNOWN_TOPIC_OR_PARTITION" };

/**
 * Kafka's AddPartitionsToTxn checks each partition: `write` on its topic (else
 * TOPIC_AUTHORIZATION_FAILED, whether or not the topic exists), then that it exists (else
 * UNKNOWN_TOPIC_OR_PARTITION); when any fails nothing is added. The refusal names each failed
 * partition in `partitions`, so the gateway answers per partition as Kafka does (the others
 * OPERATION_NOT_ATTEMPTED); its code is TOPIC_AUTHORIZATION_FAILED when any topic is refused.
 */
async function requireWritablePartitions(c: Context<RouterEnv>, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
  const principal = principalOf(c);
  const failures: PartitionFailure[] = [];
  const counts = new Map<string, number | undefined>();
  for (const { topic, partition } of partitions) {
    if (!may(principal, "topic", topic, "write")) {
      failures.push({ topic, partition, code: "TOPIC_AUTHORIZATION_FAILED" });
      continue;
    }
    if (!counts.has(topic)) counts.set(topic, await partitionCount(c.env, topic));
    if (partition >= (counts.get(topic) ?? 0)) failures.push({ topic, partition, code: "UNKNOWN_TOPIC_OR_PARTITION" });
  }
  if (failures.length === 0) return;
  const refused = failures.find((failure) => failure.code === "TOPIC_AUTHORIZATION_FAILED");
  const first = refused ?? failures[0]!;
  const message = refused ? `not authorized to write topic ${JSON.stringify(refused.topic)}` : `topic ${first.topic} has no partition ${first.partition}`;
  throw new TributaryError(first.code, message, { partitions: failures });
}

/** A topic's partition count, undefined when it does not exist. */
async function partitionCount(env: Env, topic: string): Promise<number | undefined> {
  try {
    return (await topicMetadata(env, topic)).partitions.length;
  } catch (error) {
    if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") return undefined;
    throw error;
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
    return c.json(await coordinatorCalls(c.env).describe(id));
  })
  .post("/:transactionalId/init", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { transactionTimeoutMs, producerId, producerEpoch } = await readJsonBody(c.req.raw, initTransactionSchema, { maxBytes: adminRequestBytesMax, optional: true });
    const held = producerId === undefined || producerEpoch === undefined ? undefined : { producerId, producerEpoch };
    return c.json(await coordinatorCalls(c.env).init(id, transactionTimeoutMs, held));
  })
  .post("/:transactionalId/partitions", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { producerId, producerEpoch, partitions } = await readJsonBody(c.req.raw, addPartitionsSchema, { maxBytes: adminRequestBytesMax });
    await requireWritablePartitions(c, partitions);
    return c.json(await coordinatorCalls(c.env).addPartitions(id, { producerId, producerEpoch }, partitions));
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
    const identity = await coordinatorCalls(c.env).addOffsets(id, { producerId: commit.producerId, producerEpoch: commit.producerEpoch }, group);
    unwrap(await groupStub(c.env, group).commitTransactional(group, commit));
    return c.json(identity);
  })
  .post("/:transactionalId/end", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    authorize(c, "transactionalId", id, "write");
    const { producerId, producerEpoch, commit } = await readJsonBody(c.req.raw, endTransactionSchema, { maxBytes: adminRequestBytesMax });
    return c.json(await coordinatorCalls(c.env).end(id, { producerId, producerEpoch }, commit));
  })
  .post("/:transactionalId/abort", async (c) => {
    routeQuery(c.req.url, []);
    const id = transactionalIdParam(c.req.param("transactionalId"));
    // An operator's tool (Kafka's kafka-transactions.sh abort): alter on the cluster.
    authorize(c, "cluster", clusterResourceName, "alter");
    return c.json(await coordinatorCalls(c.env).abort(id));
  });
