/**
 * Issue 16 with librdkafka (Debian's kcat, /usr/bin/kcat) and raw sockets, through
 * `tributary gateway` in front of a `wrangler dev` that requires tokens: the gateway refuses to
 * start without one; kcat lists metadata (-L), produces keyed records with librdkafka's
 * murmur2_random partitioner (-P) and consumes them (-C -e); a client's SASL PLAIN password is
 * its token (a wrong one is refused); an unknown ApiVersions version gets Kafka's v0 answer; an
 * oversized or malformed frame closes only its own connection with one log line; a connection past
 * --max-connections is closed at once; --tls-cert/--tls-key serve kcat over TLS; SIGTERM exits 0.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { promisify } from "node:util";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { readResponse, writeRequest } from "../../src/gateway/protocol/messages.ts";
import { partitionForKey } from "../../src/protocol/partitioner.ts";
import { encodeRecordBatch } from "../../src/protocol/record-batch.ts";
import { buildCli, runCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { freePort, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { kcat } from "./support/kcat.ts";

const run = promisify(execFile);
/** How long a poll waits for what must come: the machine may be busy with other test runs. */
const patient = { timeout: 15_000, interval: 20 };
const adminToken = "gateway-e2e-admin-token-0123456789abcdef";

/** One raw connection: write bytes, collect what comes back, know when it closed. */
function rawConnection(port: number): Promise<{ socket: Socket; received: () => Buffer; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => {});
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.once("connect", () => resolve({ socket, received: () => Buffer.concat(chunks), closed }));
    socket.once("error", reject);
  });
}

async function apiVersionsRoundTrip(port: number, apiVersion: number): Promise<Record<string, unknown>> {
  const { socket, received } = await rawConnection(port);
  socket.write(writeRequest({ apiKey: 18, apiVersion, correlationId: 7, clientId: "raw" }, { clientSoftwareName: "raw", clientSoftwareVersion: "1" }));
  await expect.poll(() => received().length >= 4 && received().length >= 4 + received().readInt32BE(0), patient).toBe(true);
  socket.destroy();
  const frame = received();
  // The answer to an unknown version is written at v0, whatever was asked.
  const answer = readResponse(new Uint8Array(frame.subarray(4, 4 + frame.readInt32BE(0))), 18, apiVersion > 3 ? 0 : apiVersion);
  if (!answer.ok) throw new Error(answer.error);
  expect(answer.value.correlationId).toBe(7);
  return answer.value.body;
}

describe("kcat and raw sockets through tributary gateway (a deployment with tokens)", () => {
  let server: DevServer;
  let gateway: GatewayProcess;
  let client: Tributary;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    client = new Tributary({ url: server.url, token: adminToken });
    gateway = await startGateway(server.url, { token: adminToken });
  });

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  it("refuses to start without a token, saying why", async () => {
    const port = await freePort();
    const result = await runCli(server.url, ["gateway", "--listen", `127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("needs a token");
  });

  it("kcat lists metadata, produces keyed records where murmur2_random puts them, and consumes them", async () => {
    await client.admin().topics.create({ name: "kcat-orders", partitions: 3 });
    const listing = await kcat(["-b", gateway.address, "-L"]);
    expect(listing.stdout).toContain(`broker 0 at ${gateway.address} (controller)`);
    expect(listing.stdout).toContain('topic "kcat-orders" with 3 partitions');

    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    await kcat(["-b", gateway.address, "-P", "-t", "kcat-orders", "-K", ":", "-X", "partitioner=murmur2_random"], keys.map((key) => `${key}:value-${key}\n`).join(""));
    for (const key of keys) {
      const partition = partitionForKey(new TextEncoder().encode(key), 3);
      const { records } = await client.topic("kcat-orders").fetch(partition, 0, { maxRecords: 100 });
      expect(records.map((record) => new TextDecoder().decode(record.key!))).toContain(key);
    }

    const consumed = await kcat(["-b", gateway.address, "-C", "-t", "kcat-orders", "-o", "beginning", "-e", "-f", "%k=%s\n"]);
    expect(consumed.stdout.trim().split("\n").sort()).toEqual(keys.map((key) => `${key}=value-${key}`).sort());
  });

  it("librdkafka's idempotent producer (InitProducerId, sequences) writes through it", async () => {
    await client.admin().topics.create({ name: "kcat-idempotent", partitions: 1 });
    await kcat(["-b", gateway.address, "-P", "-t", "kcat-idempotent", "-X", "enable.idempotence=true"], "one\ntwo\nthree\n");
    const { records } = await client.topic("kcat-idempotent").fetch(0, 0);
    expect(records.map((record) => new TextDecoder().decode(record.value!))).toEqual(["one", "two", "three"]);
  });

  it("a client's SASL PLAIN password is its token: the right one works, a wrong one is refused", async () => {
    const sasl = (password: string) =>
      new Kafka({ brokers: [gateway.address], clientId: "sasl", logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl: { mechanism: "plain", username: "anyone", password } });
    const good = sasl(adminToken).admin();
    await good.connect();
    expect(await good.listTopics()).toContain("kcat-orders");
    await good.disconnect();
    const bad = sasl("not-a-token").admin();
    await expect(bad.connect()).rejects.toThrow(/SASL|authentication/i);
  });

  it("an ApiVersions version it does not know gets a v0 answer with UNSUPPORTED_VERSION and the ranges", async () => {
    const known = await apiVersionsRoundTrip(gateway.port, 3);
    expect(known.errorCode).toBe(0);
    const unknown = await apiVersionsRoundTrip(gateway.port, 9);
    expect(unknown.errorCode).toBe(35);
    expect(unknown.apiKeys).toEqual(known.apiKeys);
    expect(unknown.apiKeys).toEqual(expect.arrayContaining([{ apiKey: 0, minVersion: 3, maxVersion: 13 }, { apiKey: 1, minVersion: 4, maxVersion: 18 }]));
  });

  it("a produce with acks=0 is written and answered with nothing: the next answer is the next request's", async () => {
    await client.admin().topics.create({ name: "acks-zero", partitions: 1 });
    const { socket, received } = await rawConnection(gateway.port);
    const batch = encodeRecordBatch([{ key: null, value: new TextEncoder().encode("fire and forget"), headers: [], timestamp: Date.now() }]);
    socket.write(writeRequest({ apiKey: 0, apiVersion: 7, correlationId: 1, clientId: "raw" }, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: "acks-zero", partitionData: [{ index: 0, records: batch }] }] }));
    socket.write(writeRequest({ apiKey: 18, apiVersion: 0, correlationId: 2, clientId: "raw" }, {}));
    await expect.poll(() => received().length >= 4 && received().length >= 4 + received().readInt32BE(0), patient).toBe(true);
    const frame = received();
    expect(frame.length).toBe(4 + frame.readInt32BE(0)); // one answer only
    expect(frame.readInt32BE(4)).toBe(2);
    socket.destroy();
    const { records } = await client.topic("acks-zero").fetch(0, 0);
    expect(records.map((record) => new TextDecoder().decode(record.value!))).toEqual(["fire and forget"]);
  });

  it("an oversized or malformed frame closes only its own connection, with one log line each", async () => {
    const bystander = await rawConnection(gateway.port);
    const oversized = await rawConnection(gateway.port);
    const header = Buffer.alloc(4);
    header.writeInt32BE(512 * 1024 * 1024);
    oversized.socket.write(header);
    await oversized.closed;
    const malformed = await rawConnection(gateway.port);
    // A Metadata v1 request whose topic array says 1000 entries and ends there.
    const body = Buffer.from([0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0xe8]);
    const frame = Buffer.alloc(4);
    frame.writeInt32BE(body.length);
    malformed.socket.write(Buffer.concat([frame, body]));
    await malformed.closed;
    await expect.poll(() => gateway.stderr(), patient).toMatch(/over the bound[\s\S]*malformed request/);
    expect(gateway.stderr().trim().split("\n")).toHaveLength(2);
    // The gateway and the connection beside them go on.
    expect(bystander.socket.destroyed).toBe(false);
    bystander.socket.destroy();
    expect((await kcat(["-b", gateway.address, "-L", "-t", "kcat-orders"])).stdout).toContain("kcat-orders");
  });

  it("a connection past --max-connections is closed at once, with a line; the others go on", async () => {
    const limited = await startGateway(server.url, { token: adminToken, args: ["--max-connections", "1"] });
    try {
      const first = await rawConnection(limited.port);
      const second = await rawConnection(limited.port);
      await second.closed;
      expect(limited.stderr()).toContain("1 connections already open (--max-connections)");
      expect(first.socket.destroyed).toBe(false);
      first.socket.destroy();
      await first.closed;
      await expect.poll(async () => (await kcat(["-b", limited.address, "-L"]).catch(() => ({ stdout: "" }))).stdout, patient).toContain("1 brokers");
    } finally {
      await limited.stop();
    }
  });

  it("--tls-cert and --tls-key: kcat connects over TLS", async () => {
    const directory = mkdtempSync(join(tmpdir(), "gateway-tls-"));
    const cert = join(directory, "cert.pem");
    const key = join(directory, "key.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], { stdio: "pipe" });
    const secure = await startGateway(server.url, { token: adminToken, args: ["--tls-cert", cert, "--tls-key", key] });
    try {
      expect(secure.stdout()).toContain("Kafka gateway on TLS");
      const listing = await kcat(["-b", secure.address, "-X", "security.protocol=ssl", "-X", `ssl.ca.location=${cert}`, "-L", "-t", "kcat-orders"]);
      expect(listing.stdout).toContain('topic "kcat-orders" with 3 partitions');
    } finally {
      await secure.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("SIGTERM stops it: in-flight answered, exit 0", async () => {
    const second = await startGateway(server.url, { token: adminToken });
    const { stdout } = await run("/usr/bin/kcat", ["-b", second.address, "-L"], { timeout: 30_000 });
    expect(stdout).toContain("1 brokers");
    expect(await second.stop("SIGTERM")).toBe(0);
    expect(second.stdout()).toContain("SIGTERM: stopping");
  });
});
