/**
 * The authorization matrix (issue 8; API.md, Tokens): every route × {no token, a wrong token,
 * an expired token, a revoked token, a token for another topic and group} gets the right
 * status, and nothing changes. Every route the app serves must be in the table, so a new
 * route cannot forget its check. The rightful token passes every check of its resources.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { encodeBase64 } from "../../../src/protocol/base64.ts";
import { encodeSubscription } from "../../../src/protocol/consumer-protocol.ts";
import { publicPaths } from "../../../src/router/auth.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { groupPath, join, uniqueGroup } from "../groups/support/groups.ts";
import { createTopic, produce, uniqueTopic, type ApiResponse } from "../support/http.ts";
import { adminToken, allOn, appRoutes, createToken, securedCall, type SecuredCall } from "../support/secured.ts";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";

const topic = uniqueTopic("acl");
const otherTopic = uniqueTopic("acl-other");
const group = uniqueGroup("acl");
const otherGroup = uniqueGroup("acl-other");
const subscription = `acl-${Date.now().toString(36)}`;
const transactionalId = `acl-txn-${Date.now().toString(36)}`;
const utf8 = new TextEncoder();
let memberId = "";
let memberEpoch = 0;

interface Credentials {
  rightful: string;
  other: string;
  expired: string;
  revoked: string;
  wrongSecret: string;
  readOnly: string;
}
const tokens = {} as Credentials;

interface Row {
  route: string;
  call: () => [method: string, path: string, options: SecuredCall];
  /** What the token for another topic and group gets. */
  other: { status: number; code?: string };
  /** Who passes authorization (a scoped token can never manage tokens or inject faults). */
  allowed: "rightful" | "admin";
  /** The answer without any token, when the route gives one (the identity route's "none"); 401 otherwise. */
  withoutToken?: { status: number; body: unknown };
}

const refusedTopic = { status: 403, code: "TOPIC_AUTHORIZATION_FAILED" };
/** A consumer's JoinGroup metadata (ConsumerProtocol Subscription) naming the topic, as base64. */
const classicSubscription = () => encodeBase64(encodeSubscription({ topics: [topic] }));
const refusedGroup = { status: 403, code: "GROUP_AUTHORIZATION_FAILED" };
const refusedCluster = { status: 403, code: "CLUSTER_AUTHORIZATION_FAILED" };
const refusedTransactionalId = { status: 403, code: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" };
const transactionPath = (rest = "") => `/v1/transactions/${transactionalId}${rest}`;
const noProducer = { producerId: 0, producerEpoch: 0 };
const member = () => `/members/${memberId}`;
const shareGroupPath = (name: string, rest = "") => `/v1/share-groups/${name}${rest}`;
const batch = () => encodeRecordBatch([{ key: null, value: utf8.encode("b"), headers: [], timestamp: Date.now() }]);

// In the order the rightful token runs them at the end: destructive routes last.
const rows: Row[] = [
  { route: "GET /v1/topics", call: () => ["GET", "/v1/topics", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /v1/topics/:topic", call: () => ["GET", `/v1/topics/${topic}`, {}], other: refusedTopic, allowed: "rightful" },
  {
    route: "POST /v1/topics/:topic/records",
    call: () => ["POST", `/v1/topics/${topic}/records`, { body: { records: [{ value: "x" }] } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    route: "POST /v1/topics/:topic/partitions/:partition/records",
    call: () => ["POST", `/v1/topics/${topic}/partitions/0/records`, { bytes: batch(), headers: { "content-type": recordBatchContentType } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  { route: "GET /v1/topics/:topic/partitions/:partition/records", call: () => ["GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, {}], other: refusedTopic, allowed: "rightful" },
  {
    route: "GET /v1/topics/:topic/partitions/:partition/records (binary)",
    call: () => ["GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { headers: { accept: recordBatchContentType } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    // WebSocket upgrade (docs/api.md, streaming reads): the same route with a header; the token in the Authorization header.
    route: "GET /v1/topics/:topic/partitions/:partition/records (websocket)",
    call: () => ["GET", `/v1/topics/${topic}/partitions/0/records?offset=0`, { headers: { upgrade: "websocket" } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    // A stream that would start is refused by its Last-Event-ID before it does, so this row's call ends.
    route: "GET /v1/topics/:topic/partitions/:partition/records (SSE)",
    call: () => ["GET", `/v1/topics/${topic}/partitions/0/records`, { headers: { accept: "text/event-stream", "last-event-id": "not-an-offset" } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    // The whole-topic stream; without Accept: text/event-stream the rightful token gets 400, after authorization.
    route: "GET /v1/topics/:topic/records",
    call: () => ["GET", `/v1/topics/${topic}/records`, {}],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    route: "GET /v1/topics/:topic/records (SSE)",
    call: () => ["GET", `/v1/topics/${topic}/records`, { headers: { accept: "text/event-stream", "last-event-id": "not-an-id" } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  { route: "GET /v1/topics/:topic/partitions/:partition/offsets", call: () => ["GET", `/v1/topics/${topic}/partitions/0/offsets?at=latest`, {}], other: refusedTopic, allowed: "rightful" },
  { route: "POST /v1/topics/:topic/write-tokens", call: () => ["POST", `/v1/topics/${topic}/write-tokens`, {}], other: refusedTopic, allowed: "rightful" },
  { route: "POST /v1/topics/:topic/read-tokens", call: () => ["POST", `/v1/topics/${topic}/read-tokens`, {}], other: refusedTopic, allowed: "rightful" },
  // KIP-679: write on any topic (the other token has it on its own) may initialise a producer id.
  { route: "POST /v1/producers", call: () => ["POST", "/v1/producers", {}], other: { status: 201 }, allowed: "rightful" },
  { route: "GET /v1/groups", call: () => ["GET", "/v1/groups", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /v1/groups/:group", call: () => ["GET", groupPath(group), {}], other: refusedGroup, allowed: "rightful" },
  { route: "GET /v1/groups/:group/offsets", call: () => ["GET", groupPath(group, "/offsets"), {}], other: refusedGroup, allowed: "rightful" },
  {
    route: "POST /v1/groups/:group/members/:memberId/heartbeat",
    call: () => ["POST", groupPath(group, `${member()}/heartbeat`), { body: { memberEpoch } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  {
    route: "POST /v1/groups/:group/members/:memberId/poll",
    call: () => ["POST", groupPath(group, `${member()}/poll`), { body: { memberEpoch, autoCommit: false } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  {
    route: "POST /v1/groups/:group/offsets",
    call: () => ["POST", groupPath(group, "/offsets"), { body: { memberId, memberEpoch, offsets: [{ topic, partition: 0, offset: 1 }] } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  { route: "POST /v1/groups/:group/members", call: () => ["POST", groupPath(group, "/members"), { body: { topics: [topic] } }], other: refusedGroup, allowed: "rightful" },
  // Classic members (issue 35): the group's read, as any member's request (a consumer's JoinGroup also the topics' read).
  {
    route: "POST /v1/groups/:group/classic/join",
    call: () => ["POST", groupPath(group, "/classic/join"), { body: { memberId: "nobody", protocolType: "consumer", protocols: [{ name: "range", metadata: classicSubscription() }], sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000 } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  { route: "POST /v1/groups/:group/classic/sync", call: () => ["POST", groupPath(group, "/classic/sync"), { body: { memberId: "nobody", generationId: 1 } }], other: refusedGroup, allowed: "rightful" },
  { route: "POST /v1/groups/:group/classic/heartbeat", call: () => ["POST", groupPath(group, "/classic/heartbeat"), { body: { memberId: "nobody", generationId: 1 } }], other: refusedGroup, allowed: "rightful" },
  { route: "POST /v1/groups/:group/classic/leave", call: () => ["POST", groupPath(group, "/classic/leave"), { body: { members: [{ memberId: "nobody" }] } }], other: refusedGroup, allowed: "rightful" },
  // Share groups (issue 15): the group resource, as consumer groups; their topics' read.
  { route: "GET /v1/share-groups", call: () => ["GET", "/v1/share-groups", {}], other: { status: 200 }, allowed: "rightful" },
  {
    route: "PATCH /v1/share-groups/:group/configs",
    call: () => ["PATCH", shareGroupPath(group, "/configs"), { body: { configs: { "auto.offset.reset": "earliest" } } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  { route: "GET /v1/share-groups/:group", call: () => ["GET", shareGroupPath(group), {}], other: refusedGroup, allowed: "rightful" },
  { route: "POST /v1/share-groups/:group/fetch", call: () => ["POST", shareGroupPath(group, "/fetch"), { body: { topics: [topic] } }], other: refusedGroup, allowed: "rightful" },
  {
    route: "POST /v1/share-groups/:group/acknowledge",
    call: () => ["POST", shareGroupPath(group, "/acknowledge"), { body: { lease: "l", acknowledgements: [{ topic, partition: 0, offsets: [0], type: "accept" }] } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  // Metrics show every topic and group: describe on the cluster (the rightful token has it, the other token not).
  { route: "GET /v1/metrics", call: () => ["GET", "/v1/metrics", {}], other: refusedCluster, allowed: "rightful" },
  {
    // The JSON twin: an extra row (the route is covered above), so it needs no suffix of its own in the coverage check.
    route: "GET /v1/metrics as JSON",
    call: () => ["GET", "/v1/metrics", { headers: { accept: "application/json" } }],
    other: refusedCluster,
    allowed: "rightful",
  },
  { route: "GET /v1/tokens", call: () => ["GET", "/v1/tokens", {}], other: refusedCluster, allowed: "admin" },
  { route: "POST /v1/tokens", call: () => ["POST", "/v1/tokens", { body: { rules: [allOn("topic", topic)] } }], other: refusedCluster, allowed: "admin" },
  { route: "DELETE /v1/tokens/:id", call: () => ["DELETE", `/v1/tokens/${"0".repeat(16)}`, {}], other: refusedCluster, allowed: "admin" },
  {
    route: "POST /v1/faults",
    call: () => ["POST", "/v1/faults", { body: { topic, partition: 0, replica: "weur", fault: "none" } }],
    other: refusedCluster,
    allowed: "admin",
  },
  { route: "PATCH /v1/topics/:topic/configs", call: () => ["PATCH", `/v1/topics/${topic}/configs`, { body: { configs: { "retention.ms": "3600000" } } }], other: refusedTopic, allowed: "rightful" },
  { route: "POST /v1/topics/:topic/partitions", call: () => ["POST", `/v1/topics/${topic}/partitions`, { body: { count: 2 } }], other: refusedTopic, allowed: "rightful" },
  {
    // Kafka's DeleteRecords asks DELETE on the topic: a read-only token is refused like another topic's.
    route: "POST /v1/topics/:topic/partitions/:partition/delete-records",
    call: () => ["POST", `/v1/topics/${topic}/partitions/0/delete-records`, { body: { beforeOffset: 0 } }],
    other: refusedTopic,
    allowed: "rightful",
  },
  {
    // Kafka's DescribeProducers asks DESCRIBE on the topic.
    route: "GET /v1/topics/:topic/partitions/:partition/producers",
    call: () => ["GET", `/v1/topics/${topic}/partitions/0/producers`, {}],
    other: refusedTopic,
    allowed: "rightful",
  },
  { route: "DELETE /v1/groups/:group/members/:memberId", call: () => ["DELETE", groupPath(group, member()), {}], other: refusedGroup, allowed: "rightful" },
  {
    route: "POST /v1/groups/:group/offsets/reset",
    call: () => ["POST", groupPath(group, "/offsets/reset"), { body: { topic, to: "earliest" } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  {
    route: "POST /v1/groups/:group/offsets/delete",
    call: () => ["POST", groupPath(group, "/offsets/delete"), { body: { partitions: [{ topic, partition: 0 }] } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  { route: "DELETE /v1/groups/:group", call: () => ["DELETE", groupPath(group), {}], other: refusedGroup, allowed: "rightful" },
  {
    route: "POST /v1/share-groups/:group/offsets/reset",
    call: () => ["POST", shareGroupPath(group, "/offsets/reset"), { body: { topic, to: "earliest" } }],
    other: refusedGroup,
    allowed: "rightful",
  },
  { route: "DELETE /v1/share-groups/:group", call: () => ["DELETE", shareGroupPath(group), {}], other: refusedGroup, allowed: "rightful" },
  // Push subscriptions: create/alter/delete (describe to read) on the cluster, read on the topic.
  {
    route: "POST /v1/subscriptions",
    call: () => ["POST", "/v1/subscriptions", { body: { name: subscription, topic, mode: "ordered", target: { service: "PUSH_TARGET" } } }],
    other: refusedCluster,
    allowed: "rightful",
  },
  { route: "GET /v1/subscriptions", call: () => ["GET", "/v1/subscriptions", {}], other: refusedCluster, allowed: "rightful" },
  { route: "GET /v1/subscriptions/:name", call: () => ["GET", `/v1/subscriptions/${subscription}`, {}], other: refusedCluster, allowed: "rightful" },
  { route: "PATCH /v1/subscriptions/:name", call: () => ["PATCH", `/v1/subscriptions/${subscription}`, { body: { paused: true } }], other: refusedCluster, allowed: "rightful" },
  { route: "DELETE /v1/subscriptions/:name", call: () => ["DELETE", `/v1/subscriptions/${subscription}`, {}], other: refusedCluster, allowed: "rightful" },
  // Transactions (issue 28): write on the transactional id uses it; describe sees it; an admin's abort is the cluster's alter.
  { route: "POST /v1/transactions/:transactionalId/init", call: () => ["POST", transactionPath("/init"), { body: { transactionTimeoutMs: 60_000 } }], other: refusedTransactionalId, allowed: "rightful" },
  { route: "GET /v1/transactions", call: () => ["GET", "/v1/transactions", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /v1/transactions/:transactionalId", call: () => ["GET", transactionPath(), {}], other: refusedTransactionalId, allowed: "rightful" },
  {
    route: "POST /v1/transactions/:transactionalId/partitions",
    call: () => ["POST", transactionPath("/partitions"), { body: { ...noProducer, partitions: [{ topic, partition: 0 }] } }],
    other: refusedTransactionalId,
    allowed: "rightful",
  },
  {
    route: "POST /v1/transactions/:transactionalId/offsets",
    call: () => ["POST", transactionPath("/offsets"), { body: { ...noProducer, groupId: group, offsets: [{ topic, partition: 0, offset: 1 }] } }],
    other: refusedTransactionalId,
    allowed: "rightful",
  },
  { route: "POST /v1/transactions/:transactionalId/end", call: () => ["POST", transactionPath("/end"), { body: { ...noProducer, commit: false } }], other: refusedTransactionalId, allowed: "rightful" },
  { route: "POST /v1/transactions/:transactionalId/abort", call: () => ["POST", transactionPath("/abort"), {}], other: refusedCluster, allowed: "rightful" },
  { route: "POST /v1/topics", call: () => ["POST", "/v1/topics", { body: { name: `${topic}-new` } }], other: refusedTopic, allowed: "rightful" },
  { route: "DELETE /v1/topics/:topic", call: () => ["DELETE", `/v1/topics/${topic}`, {}], other: refusedTopic, allowed: "rightful" },
  // The deployment's cluster id (issue 16): any valid token reads it.
  { route: "GET /v1/cluster", call: () => ["GET", "/v1/cluster", {}], other: { status: 200 }, allowed: "rightful" },
  // The caller's own kind of token (issue 31): any valid token asks about itself.
  { route: "GET /v1/whoami", call: () => ["GET", "/v1/whoami", {}], other: { status: 200 }, allowed: "rightful", withoutToken: { status: 200, body: { kind: "none" } } },
  // SCRAM exchanges (issue 35): any valid token (a gateway's) relays one; the client's credential is the SCRAM proof.
  {
    route: "POST /v1/scram/first",
    call: () => ["POST", "/v1/scram/first", { body: { mechanism: "SCRAM-SHA-256", clientFirst: `n,,n=${tokens.rightful.slice(4, 20)},r=matrix` } }],
    other: { status: 200 },
    allowed: "rightful",
  },
  // Without a client-final message: 400 once authenticated (a wrong proof would be 401 SASL_AUTHENTICATION_FAILED, test/workers/api/scram.test.ts).
  { route: "POST /v1/scram/final", call: () => ["POST", "/v1/scram/final", { body: { exchange: "x" } }], other: { status: 400, code: "INVALID_REQUEST" }, allowed: "rightful" },
];

// ---- Durable Streams (docs/durable-streams.md): the /ds routes authorize on the stream's topic.
// In the order the rightful token runs them: create, append, read, delete.
const streamPath = `/ds/acl/${topic}`;
const streamTopic = streamTopicName(`acl/${topic}`);
const streamText = { "content-type": "text/plain" };
rows.push(
  { route: "PUT /ds/*", call: () => ["PUT", streamPath, { headers: streamText }], other: refusedTopic, allowed: "rightful" },
  { route: "POST /ds/*", call: () => ["POST", streamPath, { bytes: utf8.encode("x"), headers: streamText }], other: refusedTopic, allowed: "rightful" },
  { route: "GET /ds/*", call: () => ["GET", streamPath, {}], other: refusedTopic, allowed: "rightful" },
  // A stream that would start is refused by its offset after authorization, so this row's call ends.
  { route: "GET /ds/* (SSE)", call: () => ["GET", `${streamPath}?offset=not-an-offset&live=sse`, {}], other: refusedTopic, allowed: "rightful" },
  { route: "DELETE /ds/*", call: () => ["DELETE", streamPath, {}], other: refusedTopic, allowed: "rightful" },
);

// ---- The schema registry (docs/schema-registry.md): the /registry routes authorize on the
// `subject` resource (the global config and mode on the cluster) and answer Confluent's error
// bodies, whose codes the matrix reads as strings ("40301"). In the order the rightful token
// runs them: reads, registration, settings, deletes last.
const registrySubject = `acl-${topic}-value`;
const registrySchema = JSON.stringify({ type: "record", name: "Acl", fields: [{ name: "a", type: "int" }] });
let registryId = 0;
const refusedSubject = { status: 403, code: "40301" };
const subjectPath = (rest = "") => `/registry/subjects/${registrySubject}${rest}`;
const schemaBody = { body: { schema: registrySchema } };
rows.push(
  { route: "GET /registry", call: () => ["GET", "/registry", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /registry/schemas/types", call: () => ["GET", "/registry/schemas/types", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /registry/subjects", call: () => ["GET", "/registry/subjects", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "GET /registry/subjects/:subject/versions", call: () => ["GET", subjectPath("/versions"), {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/subjects/:subject/versions/:version", call: () => ["GET", subjectPath("/versions/1"), {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/subjects/:subject/versions/:version/schema", call: () => ["GET", subjectPath("/versions/1/schema"), {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/subjects/:subject/versions/:version/referencedby", call: () => ["GET", subjectPath("/versions/1/referencedby"), {}], other: refusedSubject, allowed: "rightful" },
  { route: "POST /registry/subjects/:subject", call: () => ["POST", subjectPath(), schemaBody], other: refusedSubject, allowed: "rightful" },
  {
    route: "POST /registry/compatibility/subjects/:subject/versions/:version?",
    call: () => ["POST", `/registry/compatibility/subjects/${registrySubject}/versions/latest`, schemaBody],
    other: refusedSubject,
    allowed: "rightful",
  },
  { route: "GET /registry/schemas/ids/:id", call: () => ["GET", `/registry/schemas/ids/${registryId}`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/schemas/ids/:id/schema", call: () => ["GET", `/registry/schemas/ids/${registryId}/schema`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/schemas/ids/:id/subjects", call: () => ["GET", `/registry/schemas/ids/${registryId}/subjects`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/schemas/ids/:id/versions", call: () => ["GET", `/registry/schemas/ids/${registryId}/versions`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "POST /registry/subjects/:subject/versions", call: () => ["POST", subjectPath("/versions"), schemaBody], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/config", call: () => ["GET", "/registry/config", {}], other: { status: 200 }, allowed: "rightful" },
  // The global settings set to what they already are: other test files share the registry.
  { route: "PUT /registry/config", call: () => ["PUT", "/registry/config", { body: { compatibility: "BACKWARD" } }], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/mode", call: () => ["GET", "/registry/mode", {}], other: { status: 200 }, allowed: "rightful" },
  { route: "PUT /registry/mode", call: () => ["PUT", "/registry/mode", { body: { mode: "READWRITE" } }], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/config/:subject", call: () => ["GET", `/registry/config/${registrySubject}?defaultToGlobal=true`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "PUT /registry/config/:subject", call: () => ["PUT", `/registry/config/${registrySubject}`, { body: { compatibility: "FULL" } }], other: refusedSubject, allowed: "rightful" },
  { route: "DELETE /registry/config/:subject", call: () => ["DELETE", `/registry/config/${registrySubject}`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "GET /registry/mode/:subject", call: () => ["GET", `/registry/mode/${registrySubject}?defaultToGlobal=true`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "PUT /registry/mode/:subject", call: () => ["PUT", `/registry/mode/${registrySubject}`, { body: { mode: "READWRITE" } }], other: refusedSubject, allowed: "rightful" },
  { route: "DELETE /registry/mode/:subject", call: () => ["DELETE", `/registry/mode/${registrySubject}`, {}], other: refusedSubject, allowed: "rightful" },
  { route: "DELETE /registry/config", call: () => ["DELETE", "/registry/config", {}], other: refusedSubject, allowed: "rightful" },
  { route: "DELETE /registry/subjects/:subject/versions/:version", call: () => ["DELETE", subjectPath("/versions/1"), {}], other: refusedSubject, allowed: "rightful" },
  { route: "DELETE /registry/subjects/:subject", call: () => ["DELETE", subjectPath(), {}], other: refusedSubject, allowed: "rightful" },
);

/** An error's code: /v1's name, or the registry's error_code as a string (its bodies are not application/json). */
function codeOf(response: ApiResponse): string | undefined {
  if (response.body?.error?.code !== undefined) return response.body.error.code;
  try {
    const code = (JSON.parse(response.text) as { error_code?: number }).error_code;
    return code === undefined ? undefined : String(code);
  } catch {
    return undefined;
  }
}

function send(row: Row, token: string | undefined): Promise<ApiResponse> {
  const [method, path, options] = row.call();
  return securedCall(method, path, { ...options, token });
}

/** Everything a refused request could have changed, as the admin sees it. */
async function snapshot() {
  const admin = (method: string, path: string) => securedCall(method, path, { token: adminToken });
  const described = (await admin("GET", `/v1/topics/${topic}`)).body;
  return {
    topics: (await admin("GET", "/v1/topics")).body,
    topic: described && { ...described, partitions: described.partitions?.map(({ storage: _storage, ...partition }: Record<string, unknown>) => partition) },
    group: (await admin("GET", groupPath(group))).body,
    offsets: (await admin("GET", groupPath(group, "/offsets"))).body,
    shareGroup: (await admin("GET", `/v1/share-groups/${group}`)).body,
    tokens: (await admin("GET", "/v1/tokens")).body,
    produced: (await admin("GET", `/v1/topics/${topic}/partitions/0/records?offset=0`)).body,
    registry: (await admin("GET", `/registry/subjects/${registrySubject}/versions?deleted=true`)).text,
    registryConfig: (await admin("GET", `/registry/config/${registrySubject}?defaultToGlobal=true`)).text,
    transaction: (await admin("GET", transactionPath())).body,
  };
}

/** Waits, bounded, until a request with the token is refused (a router trusts its cache a few seconds). */
async function untilRefused(token: string): Promise<ApiResponse> {
  let response = await securedCall("GET", `/v1/topics/${topic}`, { token });
  for (let attempt = 0; attempt < 100 && response.status !== 401; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    response = await securedCall("GET", `/v1/topics/${topic}`, { token });
  }
  return response;
}

beforeAll(async () => {
  await createTopic(topic);
  await createTopic(otherTopic);
  await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
  const joined = await join(group, [topic], { sessionTimeoutMs: 1_800_000 });
  memberId = joined.memberId;
  memberEpoch = joined.memberEpoch;
  await join(otherGroup, [otherTopic], { sessionTimeoutMs: 1_800_000 });
  // The new topic's name starts with the topic's: a prefixed rule allows creating it. Describe on the cluster: metrics.
  const rightfulRules = [
    allOn("topic", topic),
    allOn("group", group),
    { resource: "topic", name: `${topic}-`, patternType: "prefixed", operations: ["create"] },
    { resource: "cluster", name: "tributary", patternType: "literal", operations: ["describe"] },
    // Push subscriptions.
    { resource: "cluster", name: "tributary", patternType: "literal", operations: ["create", "alter", "delete"] },
    allOn("topic", streamTopic), // the Durable Streams rows (end of file)
    allOn("subject", registrySubject), // the schema registry's rows
    allOn("transactionalId", transactionalId),
  ];
  const registered = await securedCall("POST", `/registry/subjects/${registrySubject}/versions`, { token: adminToken, body: { schema: registrySchema } });
  registryId = (JSON.parse(registered.text) as { id: number }).id;
  const rightful = await createToken({ name: "rightful", rules: rightfulRules });
  const other = await createToken({ name: "other", rules: [allOn("topic", otherTopic), allOn("group", otherGroup), allOn("transactionalId", `${transactionalId}-other`)] });
  const expired = await createToken({ name: "expired", rules: rightfulRules, expiresAt: Date.now() + 500 });
  const revoked = await createToken({ name: "revoked", rules: rightfulRules });
  const readOnly = await createToken({ name: "read-only", rules: [{ resource: "topic", name: topic, patternType: "literal", operations: ["read"] }] });
  expect((await securedCall("GET", `/v1/topics/${topic}`, { token: revoked.token })).status).toBe(200); // now cached as valid
  expect((await securedCall("DELETE", `/v1/tokens/${revoked.id}`, { token: adminToken })).status).toBe(204);
  Object.assign(tokens, {
    rightful: rightful.token,
    other: other.token,
    expired: expired.token,
    revoked: revoked.token,
    wrongSecret: `${rightful.token.slice(0, -6)}AAAAAA`,
    readOnly: readOnly.token,
  });
  expect((await untilRefused(expired.token)).status).toBe(401);
  expect((await untilRefused(revoked.token)).status).toBe(401);
});

describe("the authorization matrix", () => {
  it("covers every route the app serves", () => {
    const covered = new Set(rows.map((row) => row.route.replace(/ \((binary|SSE|websocket)\)$/, "")));
    const publicRoutes = publicPaths.map((path) => `GET ${path}`);
    expect(appRoutes().filter((route) => !publicRoutes.includes(route) && !covered.has(route))).toEqual([]);
  });

  it("serves the public routes (health, the OpenAPI document) without a token, and with any", async () => {
    expect(publicPaths).toEqual(["/v1/health", "/v1/openapi.json"]);
    for (const path of publicPaths) {
      for (const credential of [undefined, "garbage", tokens.expired, tokens.other]) {
        expect({ path, credential, status: (await securedCall("GET", path, { token: credential })).status }).toEqual({ path, credential, status: 200 });
      }
    }
  });

  it.each(rows.map((row) => [row.route, row] as const))("%s: 401 without a valid token, the other token's refusal, nothing changed", async (_route, row) => {
    const before = await snapshot();
    if (row.withoutToken !== undefined) {
      const response = await send(row, undefined);
      expect({ status: response.status, body: response.body }).toEqual(row.withoutToken);
    }
    for (const credential of [...(row.withoutToken === undefined ? [undefined] : []), "garbage", tokens.wrongSecret, tokens.expired, tokens.revoked]) {
      const response = await send(row, credential);
      const unauthenticated = row.route.includes(" /registry") ? "40101" : "UNAUTHENTICATED";
      expect({ credential, status: response.status, code: codeOf(response) }).toEqual({ credential, status: 401, code: unauthenticated });
      if (credential !== undefined) expect(response.text).not.toContain(credential); // secrets never in an error body
    }
    const other = await send(row, tokens.other);
    expect({ status: other.status, code: codeOf(other) }, other.text).toEqual(row.other);
    if (row.other.status === 403) expect(await snapshot()).toEqual(before);
  });

  it("shows the other token only what it may describe in listings", async () => {
    const topics = (await securedCall("GET", "/v1/topics", { token: tokens.other })).body.topics.map((entry: { name: string }) => entry.name);
    expect(topics).toContain(otherTopic);
    expect(topics).not.toContain(topic);
    const groups = (await securedCall("GET", "/v1/groups", { token: tokens.other })).body.groups.map((entry: { group: string }) => entry.group);
    expect(groups).toContain(otherGroup);
    expect(groups).not.toContain(group);
  });

  it("refuses a producer id to a token that may write no topic: the named topic's refusal, else the cluster's", async () => {
    const named = await securedCall("POST", "/v1/producers", { token: tokens.readOnly, body: { topic } });
    expect({ status: named.status, code: named.body?.error?.code }).toEqual(refusedTopic);
    expect(named.body.error).toMatchObject({ message: `not authorized to write topic ${JSON.stringify(topic)}`, resource: "topic", name: topic, operation: "write" });
    const unnamed = await securedCall("POST", "/v1/producers", { token: tokens.readOnly });
    expect({ status: unnamed.status, code: unnamed.body?.error?.code }).toEqual(refusedCluster);
    // KIP-679: a token that may write some topic gets a producer id whichever topic it names (its produce is checked).
    expect((await securedCall("POST", "/v1/producers", { token: tokens.other, body: { topic } })).status).toBe(201);
  });

  it("refuses a subscription whose dead-letter topic the token may not write, creating nothing", async () => {
    const name = `${subscription}-dlq`;
    const body = { name, topic, mode: "ordered", target: { service: "PUSH_TARGET" }, deadLetterTopic: otherTopic };
    const response = await securedCall("POST", "/v1/subscriptions", { token: tokens.rightful, body });
    expect({ status: response.status, code: response.body?.error?.code }).toEqual(refusedTopic);
    expect((await securedCall("GET", `/v1/subscriptions/${name}`, { token: adminToken })).status).toBe(404);
  });

  it("lets the rightful token (or, for cluster routes, the admin) past every check", async () => {
    for (const row of rows) {
      const response = await send(row, row.allowed === "admin" ? adminToken : tokens.rightful);
      expect({ route: row.route, refused: [401, 403].includes(response.status) }, response.text).toEqual({ route: row.route, refused: false });
      if (row.allowed === "admin") {
        const scoped = await send(row, tokens.rightful);
        expect({ route: row.route, status: scoped.status, code: scoped.body?.error?.code }).toEqual({ route: row.route, ...refusedCluster });
      }
    }
  });
});
