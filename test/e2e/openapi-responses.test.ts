/**
 * The router's real answers agree with GET /v1/openapi.json (issue 17): against a real
 * `wrangler dev`, the TypeScript client (and plain requests, for the routes it does not call)
 * exercise every route with a JSON answer; every response is recorded at the client's `fetch`
 * and validated with ajv against the document the server itself serves — the schema of its
 * route, status and content type. The document's objects are closed, so a field the router
 * adds or drops, or a status it answers that the document does not list, fails here.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { clientFinalMessage, clientFirstMessage } from "../../src/auth/scram.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTributaryError, Tributary, type ConsumedMessage } from "../../src/client/index.ts";
import { encodeSubscription } from "../../src/protocol/consumer-protocol.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { recordBatchContentType } from "../../src/protocol/content-types.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

interface Recorded {
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
}

type MediaTypes = Record<string, { schema: Record<string, unknown> }>;
type Operation = { responses: Record<string, { content?: MediaTypes }> };
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/** Documented answers no request here can get, and why. */
const notExercised: Record<string, string> = {};

describe("the router's answers agree with its OpenAPI document", () => {
  const adminToken = `e2e-admin-${crypto.randomUUID()}`;
  const recorded: Recorded[] = [];
  const reading: Promise<void>[] = [];
  let server: DevServer;
  let client: Tributary;

  /** Every request of this test goes through here: the answer is recorded as it came. */
  const recordingFetch = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const copy = response.clone();
    reading.push(
      copy.text().then((text) => {
        recorded.push({ method: request.method, path: new URL(request.url).pathname, status: response.status, contentType: response.headers.get("content-type") ?? "", text });
      }),
    );
    return response;
  };

  /** A request the client has no method for. */
  const call = (method: string, path: string, options: { json?: unknown; bytes?: Uint8Array; headers?: Record<string, string>; token?: string | null } = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== null) headers.authorization = `Bearer ${options.token ?? adminToken}`;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.bytes;
    return recordingFetch(new Request(`${server.url}${path}`, { method, headers, body }));
  };

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken, SUBSCRIPTION_ORIGINS: "https://hooks.example.com" } });
    client = new Tributary({ url: server.url, token: adminToken, fetch: recordingFetch });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("answers every route as the document says", async () => {
    const topics = client.admin().topics;
    await topics.create({ name: "docs", partitions: 2, configs: { "retention.ms": "3600000" } });
    await topics.create({ name: "stamped", configs: { "message.timestamp.type": "LogAppendTime" } });
    expect(isTributaryError(await topics.create({ name: "docs" }).catch((error: unknown) => error), "TOPIC_ALREADY_EXISTS")).toBe(true);
    await topics.create({ name: "docs-validated" }, { validateOnly: true }); // 200: nothing created
    await topics.alterConfigs("docs", { "retention.ms": "60000" }, { validateOnly: true });
    await topics.list();
    await topics.alterConfigs("docs", { "retention.ms": null });
    await topics.createPartitions("docs", 3);

    const topic = client.topic("docs");
    await topic.describe();
    const [written] = await topic.produce([{ key: "k", value: "v", headers: { trace: "t-1" } }]);
    await topic.fetch(written!.partition, written!.offset);
    await topic.offset(written!.partition, "earliest");
    await topics.deleteRecords("docs", [{ partition: written!.partition, offset: 0 }]); // the log start stays at 0
    await call("POST", `/v1/topics/docs/partitions/${written!.partition}/delete-records`, { json: { beforeOffset: 1_000_000 } }); // 416
    await call("GET", `/v1/topics/docs/partitions/${written!.partition}/offsets?at=0`);
    await call("GET", `/v1/topics/docs/partitions/${written!.partition}/offsets?at=epoch-end&leaderEpoch=0`);
    await client.admin().transactions.describeProducers("docs", written!.partition);
    await topic.writeToken({ ttlMs: 60_000 });
    await call("POST", "/v1/topics/docs/read-tokens", { json: { ttlMs: 60_000 } });
    expect(isTributaryError(await topic.fetch(0, 1_000_000).catch((error: unknown) => error), "OFFSET_OUT_OF_RANGE")).toBe(true);

    // JSON produce and fetch, acks 0 on both transports, an append-time topic's binary answer.
    await call("POST", "/v1/topics/docs/records", { json: { records: [{ key: "a", value: "1", headers: { h: "x" } }, { value: null }] } });
    await call("POST", "/v1/topics/docs/records", { json: { records: [{ value: "fire and forget" }], acks: 0 } });
    await call("GET", "/v1/topics/docs/partitions/0/records?offset=0&encoding=base64");
    const batch = encodeRecordBatch([{ key: null, value: new TextEncoder().encode("b"), headers: [], timestamp: Date.now() }]);
    const binary = { bytes: batch, headers: { "content-type": recordBatchContentType } };
    await call("POST", "/v1/topics/docs/partitions/0/records?acks=0", binary);
    await call("POST", "/v1/topics/stamped/partitions/0/records", binary);
    await call("POST", "/v1/topics/nope/records", { json: { records: [{ value: "x" }] } });

    // An idempotent producer: POST /v1/producers, then binary produce.
    const producer = client.producer({ idempotent: true });
    await producer.send({ topic: "docs", messages: [{ key: "p", value: "idempotent" }] });
    await producer.close();

    // A group: join, poll, heartbeat, commit and leave through the client's consumer; the rest by hand.
    const consumer = client.consumer({ groupId: "docs-readers", maxWaitTimeInMs: 200 });
    await consumer.subscribe({ topics: ["docs"], fromBeginning: true });
    const seen: ConsumedMessage[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message) });
    for (const deadline = Date.now() + 30_000; seen.length < 4; ) {
      expect(Date.now(), `4 records (got ${seen.length})`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const groups = client.admin().groups;
    await groups.describe("docs-readers");
    await consumer.disconnect();
    const joined = (await (await call("POST", "/v1/groups/by-hand/members", { json: { topics: ["docs"], clientId: "openapi" } })).json()) as { memberId: string; memberEpoch: number };
    await call("POST", `/v1/groups/by-hand/members/${joined.memberId}/heartbeat`, { json: { memberEpoch: joined.memberEpoch } });
    await call("POST", `/v1/groups/by-hand/members/${joined.memberId}/poll`, { json: { memberEpoch: joined.memberEpoch, encoding: "base64" } });
    await call("DELETE", `/v1/groups/by-hand/members/${joined.memberId}`);
    // A classic member (issue 35), as the Kafka gateway calls: MEMBER_ID_REQUIRED, a join held through the initial delay, sync, heartbeat, describe, leave.
    const metadata = Buffer.from(encodeSubscription({ topics: ["docs"] })).toString("base64");
    const classicJoin = { protocolType: "consumer", protocols: [{ name: "range", metadata }], sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 10_000, requireKnownMemberId: true };
    const required = (await (await call("POST", "/v1/groups/classic-docs/classic/join", { json: classicJoin })).json()) as { memberId: string };
    const classic = (await (await call("POST", "/v1/groups/classic-docs/classic/join", { json: { ...classicJoin, memberId: required.memberId, waitMs: 10_000 } })).json()) as { generationId: number };
    await call("POST", "/v1/groups/classic-docs/classic/sync", { json: { memberId: required.memberId, generationId: classic.generationId, assignments: [{ memberId: required.memberId, assignment: metadata }] } });
    await call("POST", "/v1/groups/classic-docs/classic/heartbeat", { json: { memberId: required.memberId, generationId: classic.generationId } });
    await call("GET", "/v1/groups/classic-docs");
    await call("POST", "/v1/groups/classic-docs/offsets", { json: { memberId: required.memberId, memberEpoch: classic.generationId, classic: true, offsets: [{ topic: "docs", partition: 0, offset: 1, metadata: "note" }] } });
    await call("GET", "/v1/groups/classic-docs/offsets");
    await call("POST", "/v1/groups/classic-docs/classic/leave", { json: { members: [{ memberId: required.memberId }] } });
    await groups.list();
    expect((await groups.list({ states: ["empty", "Stable"], types: ["consumer"] })).every(({ state }) => state === "Empty" || state === "Stable")).toBe(true);
    await call("GET", "/v1/metrics", { headers: { accept: "application/json" } });
    await call("GET", "/v1/metrics");
    await groups.offsets("docs-readers");
    await groups.resetOffsets("docs-readers", { topic: "docs", to: "earliest", dryRun: true });
    await groups.resetOffsets("docs-readers", { topic: "docs", to: { offset: 1 } });
    await groups.commitOffsets("docs-readers", [{ topic: "docs", partition: 0, offset: 1 }]);
    await call("POST", "/v1/groups/docs-readers/offsets/delete", { json: { partitions: [{ topic: "docs", partition: 0 }] } });
    await groups.delete("docs-readers");
    await call("GET", "/v1/groups/docs-readers");

    // Share groups (issue 15), by hand: configs, fetch (acknowledgements riding along), acknowledge, list, describe, reset, delete.
    type ShareAnswer = { lease: string; records: { topic: string; partition: number; offset: number }[] };
    const accepting = (answer: ShareAnswer) => answer.records.map(({ topic, partition, offset }) => ({ topic, partition, offsets: [offset], type: "accept" }));
    await call("PATCH", "/v1/share-groups/docs-share/configs", { json: { configs: { "auto.offset.reset": "earliest" } } });
    const shared = (await (await call("POST", "/v1/share-groups/docs-share/fetch", { json: { topics: ["docs"], maxRecords: 2 } })).json()) as ShareAnswer;
    const riding = accepting(shared).map((ack) => ({ ...ack, lease: shared.lease }));
    const more = (await (await call("POST", "/v1/share-groups/docs-share/fetch", { json: { topics: ["docs"], maxRecords: 1, encoding: "base64", acknowledgements: riding } })).json()) as ShareAnswer;
    await call("POST", "/v1/share-groups/docs-share/acknowledge", { json: { lease: more.lease, acknowledgements: accepting(more).length ? accepting(more) : [{ topic: "docs", partition: 0, offsets: [0], type: "accept" }] } });
    await call("GET", "/v1/share-groups");
    await call("GET", "/v1/share-groups/docs-share");
    await call("POST", "/v1/share-groups/docs-share/offsets/reset", { json: { topic: "docs", to: "latest" } });
    await call("DELETE", "/v1/share-groups/docs-share");
    await call("GET", "/v1/share-groups/docs-share");

    // Tokens, then what a secured deployment answers without one, and the public routes.
    const tokens = client.admin().tokens;
    const created = await tokens.create({ name: "docs", rules: [{ resource: "topic", name: "docs", patternType: "literal", operations: ["read"] }], quotas: { requestsPerSecond: 100 } });
    await tokens.list();
    // A SCRAM exchange as the Kafka gateway relays one (the scoped token's id and the token), and a refused one.
    const scramFirst = clientFirstMessage(created.id, "docsnonce");
    const started = (await (await call("POST", "/v1/scram/first", { json: { mechanism: "SCRAM-SHA-256", clientFirst: scramFirst.message } })).json()) as { serverFirst: string; exchange: string };
    const scramFinal = await clientFinalMessage("SHA-256", created.token.reveal(), scramFirst.bare, started.serverFirst);
    if (!scramFinal.ok) throw new Error(scramFinal.error);
    await call("POST", "/v1/scram/final", { json: { exchange: started.exchange, clientFinal: scramFinal.value.message } });
    await call("POST", "/v1/scram/final", { json: { exchange: started.exchange, clientFinal: "c=biws,r=docsnonce,p=AAAA" } });
    await tokens.revoke(created.id);
    await call("GET", "/v1/topics", { token: null });
    await call("PUT", "/v1/topics");
    await call("GET", "/v1/cluster"); // the deployment's cluster id (the Kafka gateway reads it)
    await call("GET", "/v1/whoami"); // the caller's kind of token (the console's header)
    await call("GET", "/v1/health", { token: null });
    await call("GET", "/v1/openapi.json", { token: null });
    await call("GET", "/v1/openapi.json?unknown=1", { token: null });
    // Push subscriptions (a webhook of the origin this server lists; nothing is produced to "docs" after it is made).
    const subscriptions = client.admin().subscriptions;
    await subscriptions.create({ name: "docs-push", topic: "docs", mode: "ordered", target: { url: "https://hooks.example.com/docs", secret: "s3cret" } });
    await subscriptions.list();
    await subscriptions.describe("docs-push");
    await subscriptions.pause("docs-push");
    await subscriptions.delete("docs-push");
    // A transaction (docs/transactions.md): init, a partition and a group's offsets, commit, then an admin abort of an open one.
    const transactional = (await (await call("POST", "/v1/transactions/docs-txn/init", { json: { transactionTimeoutMs: 60_000 } })).json()) as { producerId: number; producerEpoch: number };
    await call("POST", "/v1/transactions/docs-txn/partitions", { json: { ...transactional, partitions: [{ topic: "docs", partition: 0 }] } });
    await call("POST", "/v1/transactions/docs-txn/offsets", { json: { ...transactional, groupId: "docs-txn-group", offsets: [{ topic: "docs", partition: 0, offset: 0 }] } });
    const next = (await (await call("POST", "/v1/transactions/docs-txn/end", { json: { ...transactional, commit: true } })).json()) as { producerId: number; producerEpoch: number };
    await call("POST", "/v1/transactions/docs-txn/partitions", { json: { ...next, partitions: [{ topic: "docs", partition: 0 }] } });
    await call("GET", "/v1/transactions");
    await call("GET", "/v1/transactions/docs-txn");
    await call("POST", "/v1/transactions/docs-txn/abort");
    await topics.delete("stamped");
    await Promise.all(reading);

    const document = JSON.parse(recorded.find((entry) => entry.path === "/v1/openapi.json" && entry.status === 200)!.text) as OpenApi;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const problems: string[] = [];
    const covered = new Set<string>();
    for (const entry of recorded) {
      const found = operationOf(document, entry.method, entry.path);
      if (found === undefined) {
        // Only the deliberate 405 (a method the path is not served with) has no operation.
        if (entry.status !== 405) problems.push(`${entry.method} ${entry.path}: no operation in the document`);
        continue;
      }
      const where = `${entry.method} ${found.template} ${entry.status}`;
      covered.add(where);
      const answer = found.operation.responses[String(entry.status)];
      if (answer === undefined) {
        problems.push(`${where}: status not in the document (${entry.text.slice(0, 200)})`);
        continue;
      }
      const media = entry.contentType.split(";")[0]!.trim();
      if (entry.status === 204 || entry.status === 101) {
        if (entry.text !== "") problems.push(`${where}: a body where the document has none`);
        continue;
      }
      // A declared type may carry parameters (Prometheus's `text/plain; version=0.0.4`).
      const declared = Object.entries(answer.content ?? {}).find(([type]) => type.split(";")[0]!.trim() === media)?.[1];
      if (declared === undefined) {
        problems.push(`${where}: content type ${media} not in the document`);
        continue;
      }
      if (media !== "application/json") continue;
      const validate = ajv.compile(declared.schema);
      if (!validate(JSON.parse(entry.text))) problems.push(`${where}: ${(validate.errors ?? []).map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`).join("; ")}`);
    }
    expect(problems).toEqual([]);

    // Every JSON success the document lists was exercised (so a new route needs a request here).
    const jsonSuccesses = Object.entries(document.paths).flatMap(([template, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) =>
        Object.entries(operation.responses)
          .filter(([status, answer]) => status.startsWith("2") && answer.content?.["application/json"] !== undefined)
          .map(([status]) => `${method.toUpperCase()} ${template} ${status}`),
      ),
    );
    expect(jsonSuccesses.filter((where) => !covered.has(where) && !(where in notExercised))).toEqual([]);
    expect(covered.size).toBeGreaterThan(30);
  });
});

/** The document's operation for a request: the path template that matches it with this method. */
function operationOf(document: OpenApi, method: string, path: string): { template: string; operation: Operation } | undefined {
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\./g, "\\.").replace(/\{\w+\}/g, "[^/]+")}$`);
    const operation = methods[method.toLowerCase()];
    if (operation !== undefined && pattern.test(path)) return { template, operation };
  }
  return undefined;
}
