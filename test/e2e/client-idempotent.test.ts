/**
 * Issue 6: "a producer retry after a dropped response writes no duplicate", with the real
 * client against a real `wrangler dev` (fault injection on, for this server only). The
 * partition leader stores the batch and loses its reply (crash-after-write); the router
 * answers 503 LEADER_NOT_AVAILABLE, the client resends the same bytes, and the leader answers
 * them with the original offsets instead of writing them again. The same fault without
 * idempotence shows the duplicate it prevents.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

describe("idempotent client producer against wrangler dev", () => {
  let server: DevServer;
  let client: Tributary;
  /** Every produce request the client made, with the status it got. */
  const produceCalls: { path: string; status: number }[] = [];

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_FAULTS: "1" } });
    const recordingFetch = async (request: Request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      const method = request.method;
      const response = await fetch(request);
      if (method === "POST" && path.endsWith("/records")) produceCalls.push({ path, status: response.status });
      return response;
    };
    client = new Tributary({ url: server.url, fetch: recordingFetch, retry: { initialBackoffMs: 50 } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function crashLeaderAfterNextWrite(topic: string): Promise<void> {
    const leader = (await client.admin().topics.describe(topic)).partitions[0]!.leader;
    const response = await fetch(`${server.url}/v1/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ topic, partition: 0, replica: leader, fault: "crash-after-write" }),
    });
    expect(response.status, await response.text()).toBe(204);
  }

  async function valuesOf(topic: string): Promise<(string | null)[]> {
    const { records, highWatermark } = await client.topic(topic).fetch(0, 0, { maxRecords: 100 });
    expect(records).toHaveLength(highWatermark);
    return records.map((record) => text(record.value));
  }

  it("a retry after a dropped response writes no duplicate and gets the original offset", async () => {
    await client.admin().topics.create({ name: "payments", partitions: 1 });
    const producer = client.producer({ lingerMs: 0 }); // idempotent by default
    await producer.send({ topic: "payments", messages: [{ key: "k", value: "before" }] });

    await crashLeaderAfterNextWrite("payments");
    produceCalls.length = 0;
    const [result] = await producer.send({ topic: "payments", messages: [{ key: "k", value: "charged once" }] });
    expect(result).toMatchObject({ topic: "payments", partition: 0, offset: 1 });
    // The first attempt was stored but its answer lost; the retry was answered from the stored batch.
    expect(produceCalls.map((call) => call.status)).toEqual([503, 200]);
    expect(await valuesOf("payments")).toEqual(["before", "charged once"]);

    await producer.send({ topic: "payments", messages: [{ key: "k", value: "after" }] });
    expect(await valuesOf("payments")).toEqual(["before", "charged once", "after"]);
    await producer.close();
  });

  it("without idempotence the same fault writes the record twice (what the default prevents)", async () => {
    await client.admin().topics.create({ name: "payments-plain", partitions: 1 });
    const producer = client.producer({ lingerMs: 0, idempotent: false });
    await crashLeaderAfterNextWrite("payments-plain");
    produceCalls.length = 0;
    const [result] = await producer.send({ topic: "payments-plain", messages: [{ value: "charged" }] });
    expect(produceCalls.map((call) => call.status)).toEqual([503, 200]);
    expect(result!.offset).toBe(1);
    expect(await valuesOf("payments-plain")).toEqual(["charged", "charged"]);
    await producer.close();
  });
});
