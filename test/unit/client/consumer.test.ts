/**
 * The group consumer over group polls (`transport: "poll"`, the default where the client has no
 * WebSocket) against the fake server: the consumer suite both transports run
 * (test/shared/consumer.cases.ts), then what only polls do — pauses sent with each poll, a poll
 * refused as fenced.
 */
import { describe, expect, it } from "vitest";
import { consumerCases, polls, seeded, transportSetup, until, type ConsumerTransport } from "../../shared/consumer.cases.ts";
import type { FakeServer } from "./support/fake-server.ts";

const pollTransport: ConsumerTransport = {
  setup: transportSetup("poll", false),
  reading: (server) => polls(server).length >= 2,
  expectReadBy(server) {
    expect(polls(server).length).toBeGreaterThan(0);
    expect(server.streams.sockets).toEqual([]);
  },
  pausedAsServerSees(server: FakeServer) {
    const lastPoll = JSON.parse(new TextDecoder().decode(polls(server).at(-1)!.body)) as { paused: { topic: string; partitions: number[] }[] };
    return lastPoll.paused.find((entry) => entry.topic === "orders")?.partitions ?? [];
  },
};

describe("consumer({ transport: 'poll' })", () => {
  for (const [name, run] of Object.entries(consumerCases)) it(name, () => run(pollTransport));

  it("rejoins with epoch 0 when a poll is refused as fenced and re-reads from the committed offset", async () => {
    const { server, consumer: make } = await seeded(pollTransport, 1, 4);
    const consumer = make();
    await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
    const seen: number[] = [];
    let fenced = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.offset);
        if (message.offset === 1 && !fenced) {
          fenced = true;
          server.failNext((r) => r.path.endsWith("/poll"), {
            kind: "error",
            status: 409,
            body: { error: { code: "FENCED_MEMBER_EPOCH", message: "fenced" } },
          });
        }
      },
    });
    await until(() => seen.length === 8, "the records again");
    await consumer.disconnect();
    const rejoin = server.requestsTo(/\/heartbeat$/).map((r) => JSON.parse(new TextDecoder().decode(r.body)));
    expect(rejoin).toContainEqual({ memberEpoch: 0, ownedPartitions: [] });
    // The positions were dropped with the fencing: records 0..3 came again from the committed offset (0).
    expect(seen).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
  });
});
