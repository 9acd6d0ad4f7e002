/**
 * Produce v13 names topics by id: each id is resolved through the session before anything is
 * written; an id no topic has is UNKNOWN_TOPIC_ID for its partitions (nothing sent upstream),
 * the others are written to their topic and answered by id.
 */
import { describe, expect, it } from "vitest";
import type { GatewayRequestContext } from "../../../src/gateway/handler-types.ts";
import { produce } from "../../../src/gateway/handlers/produce.ts";
import { kafkaErrors } from "../../../src/gateway/kafka-errors.ts";

describe("Produce v13", () => {
  it("writes a known id's partitions to its topic and refuses an unknown id's with UNKNOWN_TOPIC_ID, answering both by id", async () => {
    const known = new Uint8Array(16).fill(1);
    const unknown = new Uint8Array(16).fill(2);
    const posted: string[] = [];
    const context = {
      apiVersion: 13,
      readOrder: 1,
      session: { topicNamed: async (id: Uint8Array) => (id[0] === 1 ? "orders" : undefined), invalidate: () => undefined },
      transport: {
        json: async (request: { path: string }) => {
          posted.push(request.path);
          return { baseOffset: 3 };
        },
      },
    } as unknown as GatewayRequestContext;
    const records = Uint8Array.from([1, 2, 3]);
    const request = {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30_000,
      topicData: [
        { name: "", topicId: unknown, partitionData: [{ index: 0, records }] },
        { name: "", topicId: known, partitionData: [{ index: 0, records }] },
      ],
    };
    const [answer] = (await produce.run([request], context)) as { responses: { topicId: Uint8Array; partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }[];
    expect(answer!.responses.map(({ topicId, partitionResponses }) => [topicId[0], partitionResponses[0]!.errorCode, partitionResponses[0]!.baseOffset])).toEqual([
      [2, kafkaErrors.UNKNOWN_TOPIC_ID, -1n],
      [1, kafkaErrors.NONE, 3n],
    ]);
    expect(posted).toEqual(["/v1/topics/orders/partitions/0/records"]);
  });
});
