/**
 * Issue 35, item 8: SASL as Kafka users configure it, through `tributary gateway` in front of a
 * `wrangler dev` that requires tokens, each mechanism with clients that implement it:
 *
 * - SCRAM-SHA-256 and SCRAM-SHA-512 (the username a scoped token's id, the password the token;
 *   the deployment checks the exchange, the gateway never learns the token): librdkafka (kcat),
 *   kafkajs, confluent-kafka (librdkafka 2.16) and the Java client 4.4 produce and consume,
 *   with the token's rules;
 * - OAUTHBEARER with a Tributary token as the bearer: kafkajs's `oauthBearerProvider`,
 *   confluent-kafka's `oauth_cb` and the Java client's login callback handler;
 * - a bad credential fails at once with SASL_AUTHENTICATION_FAILED and the reason, in each client;
 * - `--max-reauth`: the Java client and librdkafka 2.16 re-authenticate before their sessions end (KIP-368) and their
 *   connections live on (a client that does not is disconnected at its next request:
 *   test/unit/gateway/connection.test.ts); SaslHandshake lists the mechanisms.
 */
import { Kafka, logLevel, type SASLOptions } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { readResponse, writeRequest } from "../../src/gateway/protocol/messages.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { runJava } from "./support/java-clients.ts";
import { kcat } from "./support/kcat.ts";
import { runPython } from "./support/python-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { connect } from "node:net";

const adminToken = "gateway-sasl-e2e-admin-token-0123456789";
const text = new TextDecoder();

interface Created {
  id: string;
  token: string;
}

function scramArgs(address: string, mechanism: string, username: string, password: string): string[] {
  return ["-b", address, "-X", "security.protocol=SASL_PLAINTEXT", "-X", `sasl.mechanisms=${mechanism}`, "-X", `sasl.username=${username}`, "-X", `sasl.password=${password}`];
}

function kafka(address: string, sasl: SASLOptions): Kafka {
  return new Kafka({ brokers: [address], clientId: "sasl-e2e", logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl });
}

interface ClientResult {
  acked: number;
  consumed: number;
  error: string | null;
}

async function python(address: string, mechanism: string, username: string, secret: string, topic: string, records: number, pauseMs: number): Promise<ClientResult> {
  const run = await runPython("sasl_clients.py", [address, mechanism, username, secret, topic, String(records), String(pauseMs)]);
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  if (!line.startsWith("{")) throw new Error(`sasl_clients.py printed no result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line) as ClientResult;
}

async function java(address: string, mechanism: string, username: string, secret: string, topic: string, records: number, pauseMs: number): Promise<ClientResult> {
  const run = await runJava("SaslClients", [address, mechanism, username, secret, topic, String(records), String(pauseMs)]);
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  if (!line.startsWith("{")) throw new Error(`SaslClients printed no result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line) as ClientResult;
}

describe("SASL through tributary gateway: SCRAM-SHA-256/512 and OAUTHBEARER beside PLAIN", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;
  /** Every operation on topics named sasl-*, and on every group. */
  let scoped: Created;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    client = new Tributary({ url: server.url, token: adminToken });
    gateway = await startGateway(server.url, { token: adminToken });
    const all = ["read", "write", "describe", "create", "alter", "delete"] as const;
    const created = await client.admin().tokens.create({
      name: "sasl-e2e",
      rules: [
        { resource: "topic", name: "sasl-", patternType: "prefixed", operations: [...all] },
        { resource: "group", name: "*", patternType: "literal", operations: [...all] },
      ],
    });
    scoped = { id: created.id, token: created.token.reveal() };
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  it("SaslHandshake lists PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER; an unknown mechanism is UNSUPPORTED_SASL_MECHANISM", async () => {
    const socket = connect(gateway.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(writeRequest({ apiKey: 17, apiVersion: 1, correlationId: 1, clientId: "raw" }, { mechanism: "GSSAPI" }));
    await expect.poll(() => Buffer.concat(chunks).length >= 4 && Buffer.concat(chunks).length >= 4 + Buffer.concat(chunks).readInt32BE(0), { timeout: 15_000 }).toBe(true);
    socket.destroy();
    const frame = Buffer.concat(chunks);
    const answer = readResponse(new Uint8Array(frame.subarray(4, 4 + frame.readInt32BE(0))), 17, 1);
    if (!answer.ok) throw new Error(answer.error);
    expect(answer.value.body).toEqual({ errorCode: 33, mechanisms: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] });
  });

  it.each(["SCRAM-SHA-256", "SCRAM-SHA-512"])("kcat (librdkafka) with %s: produces and consumes as the scoped token", async (mechanism) => {
    const topic = `sasl-kcat-${mechanism.toLowerCase()}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const args = scramArgs(gateway.address, mechanism, scoped.id, scoped.token);
    await kcat([...args, "-P", "-t", topic], "one\ntwo\n");
    const consumed = await kcat([...args, "-C", "-t", topic, "-o", "beginning", "-e"]);
    expect(consumed.stdout.trim().split("\n")).toEqual(["one", "two"]);
    // The token's rules hold: it may not describe a topic outside sasl-*, and sees none.
    await client.admin().topics.create({ name: `other-${mechanism.toLowerCase()}`, partitions: 1 });
    const listing = await kcat([...args, "-L"]);
    expect(listing.stdout).toContain(`topic "${topic}"`);
    expect(listing.stdout).not.toContain(`other-${mechanism.toLowerCase()}`);
  });

  it("kcat: a wrong password, an unknown id and the admin token as a SCRAM user fail at once, saying why", async () => {
    const refused = (username: string, password: string, mechanism = "SCRAM-SHA-256") => kcat([...scramArgs(gateway.address, mechanism, username, password), "-L", "-m", "2"]);
    await expect(refused(scoped.id, `${scoped.token}x`)).rejects.toThrow(`the password is not the token whose id is ${scoped.id}`);
    await expect(refused("0123456789abcdef", scoped.token, "SCRAM-SHA-512")).rejects.toThrow("no live scoped token has the id 0123456789abcdef");
    await expect(refused("admin", adminToken)).rejects.toThrow("the SCRAM username is a scoped token's id");
  });

  it.each(["scram-sha-256", "scram-sha-512"] as const)("kafkajs with %s: produces, consumes, and is held to the token's rules", async (mechanism) => {
    const topic = `sasl-kafkajs-${mechanism}`;
    const authenticated = kafka(gateway.address, { mechanism, username: scoped.id, password: scoped.token });
    const producer = authenticated.producer({ allowAutoTopicCreation: false });
    const admin = authenticated.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await expect(admin.createTopics({ topics: [{ topic: `outside-${mechanism}`, numPartitions: 1 }] })).rejects.toMatchObject({ errors: [expect.objectContaining({ type: "TOPIC_AUTHORIZATION_FAILED" })] });
    await admin.disconnect();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: "from kafkajs" }] });
    await producer.disconnect();
    const { records } = await client.topic(topic).fetch(0, 0);
    expect(records.map((record) => text.decode(record.value!))).toEqual(["from kafkajs"]);
    const refused = kafka(gateway.address, { mechanism, username: scoped.id, password: "trb_0000000000000000_not-the-token" }).admin();
    await expect(refused.connect()).rejects.toThrow(/the password is not the token whose id is/);
  });

  it("kafkajs with OAUTHBEARER: the bearer is a Tributary token; a refused one fails saying so", async () => {
    const topic = "sasl-kafkajs-oauthbearer";
    await client.admin().topics.create({ name: topic, partitions: 1 });
    const producer = kafka(gateway.address, { mechanism: "oauthbearer", oauthBearerProvider: async () => ({ value: scoped.token }) }).producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: "bearer" }] });
    await producer.disconnect();
    const { records } = await client.topic(topic).fetch(0, 0);
    expect(records.map((record) => text.decode(record.value!))).toEqual(["bearer"]);
    const refused = kafka(gateway.address, { mechanism: "oauthbearer", oauthBearerProvider: async () => ({ value: "trb_0000000000000000_not-a-token" }) }).admin();
    await expect(refused.connect()).rejects.toThrow(/OAUTHBEARER's bearer is a Tributary token/);
  });

  it.each(["SCRAM-SHA-512", "OAUTHBEARER"])("the Java client with %s produces and consumes; a bad credential fails with SASL_AUTHENTICATION_FAILED's message", async (mechanism) => {
    const topic = `sasl-java-${mechanism.toLowerCase()}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    expect(await java(gateway.address, mechanism, scoped.id, scoped.token, topic, 3, 0)).toEqual({ acked: 3, consumed: 3, error: null });
    const refused = await java(gateway.address, mechanism, scoped.id, "trb_0000000000000000_not-the-token", topic, 1, 0);
    expect(refused.acked).toBe(0);
    expect(refused.error).toContain("SaslAuthenticationException");
    expect(refused.error).toMatch(mechanism === "OAUTHBEARER" ? /the deployment refused the bearer token/ : /the password is not the token whose id is/);
  });

  it.each(["SCRAM-SHA-256", "OAUTHBEARER"])("confluent-kafka (librdkafka 2.16) with %s produces and consumes; a bad credential fails with the reason", async (mechanism) => {
    const topic = `sasl-python-${mechanism.toLowerCase()}`;
    await client.admin().topics.create({ name: topic, partitions: 1 });
    expect(await python(gateway.address, mechanism, scoped.id, scoped.token, topic, 3, 0)).toEqual({ acked: 3, consumed: 3, error: null });
    const refused = await python(gateway.address, mechanism, scoped.id, "trb_0000000000000000_not-the-token", topic, 1, 0);
    expect(refused.acked).toBe(0);
    expect(refused.error).toMatch(mechanism === "OAUTHBEARER" ? /the deployment refused the bearer token/ : /the password is not the token whose id is/);
  });

  it("--max-reauth: the Java client and librdkafka 2.16 authenticate again before their sessions end (KIP-368), their connections live on", async () => {
    const short = await startGateway(server.url, { token: adminToken, args: ["--max-reauth", "3s"] });
    try {
      await client.admin().topics.create({ name: "sasl-reauth", partitions: 1 });
      // 20 records half a second apart: the producer's connection outlives three sessions.
      expect(await java(short.address, "SCRAM-SHA-256", scoped.id, scoped.token, "sasl-reauth", 20, 500)).toEqual({ acked: 20, consumed: 20, error: null });
      expect(await java(short.address, "OAUTHBEARER", "", scoped.token, "sasl-reauth", 8, 500)).toEqual({ acked: 8, consumed: 28, error: null });
      // librdkafka 2.16 (confluent-kafka) re-authenticates too, asking its oauth_cb again.
      for (const mechanism of ["SCRAM-SHA-512", "OAUTHBEARER"]) {
        const topic = `sasl-reauth-python-${mechanism.toLowerCase()}`;
        await client.admin().topics.create({ name: topic, partitions: 1 });
        expect(await python(short.address, mechanism, scoped.id, scoped.token, topic, 8, 500)).toEqual({ acked: 8, consumed: 8, error: null });
      }
      // A connection whose session ended without re-authentication would have been closed, with a line.
      expect(short.stderr()).not.toContain("SASL session ended");
    } finally {
      await short.stop();
    }
  });
});
