/**
 * The client's types agree with the OpenAPI document: the document's response schemas are
 * generated from src/protocol/response-schemas.ts, so each answer the client reads as one of
 * its types must be assignable to that type from the schema's output type (checked by
 * `npm run typecheck`; vitest runs the runtime half). The router's real answers are checked
 * against the document in test/e2e/openapi-responses.test.ts.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { GroupDescription, GroupOffset, GroupSummary, Topic, TopicSummary, TokenInfo } from "../../../src/client/index.ts";
import type { PollAnswer } from "../../../src/client/group-member.ts";
import type { TokenView } from "../../../src/contracts/controller-api.ts";
import type {
  binaryProduceResponseSchema,
  createdTokenSchema,
  groupDescriptionSchema,
  groupListSchema,
  groupOffsetsSchema,
  memberResponseSchema,
  pollResponseSchema,
  producerIdentitySchema,
  resetOffsetsResponseSchema,
  tokenListSchema,
  tokenViewSchema,
  topicListSchema,
  topicSchema,
} from "../../../src/protocol/response-schemas.ts";
import { topicSchema as topicSchemaValue } from "../../../src/protocol/response-schemas.ts";

type Out<Schema extends z.ZodType> = z.output<Schema>;

describe("the client's types and the document's response schemas", () => {
  it("reads topics, groups and tokens as the document describes them", () => {
    expectTypeOf<Out<typeof topicSchema>>().toExtend<Topic>();
    expectTypeOf<Out<typeof topicListSchema>["topics"][number]>().toEqualTypeOf<TopicSummary>();
    expectTypeOf<Out<typeof groupListSchema>["groups"][number]>().toEqualTypeOf<GroupSummary>();
    expectTypeOf<Out<typeof groupDescriptionSchema>>().toExtend<GroupDescription>();
    expectTypeOf<Out<typeof groupOffsetsSchema>["offsets"][number]>().toEqualTypeOf<GroupOffset>();
    expectTypeOf<Out<typeof resetOffsetsResponseSchema>["offsets"][number]>().toExtend<{ topic: string; partition: number; offset: number }>();
    expectTypeOf<Out<typeof tokenListSchema>["tokens"][number]>().toExtend<TokenInfo>();
    expectTypeOf<Out<typeof tokenViewSchema>>().toExtend<TokenInfo>();
    // The controller's answers are what the document says the token routes answer.
    expectTypeOf<TokenView>().toExtend<Out<typeof tokenViewSchema>>();
    expectTypeOf<TokenView & { token: string }>().toExtend<Out<typeof createdTokenSchema>>();
  });

  it("reads polls, heartbeats, producer ids and binary produce answers as the document describes them", () => {
    expectTypeOf<Out<typeof pollResponseSchema>>().toExtend<PollAnswer>();
    expectTypeOf<Out<typeof memberResponseSchema>>().toExtend<{ memberEpoch: number; heartbeatIntervalMs?: number }>();
    expectTypeOf<Out<typeof producerIdentitySchema>>().toEqualTypeOf<{ producerId: number; producerEpoch: number }>();
    expectTypeOf<Out<typeof binaryProduceResponseSchema>>().toExtend<{ partition?: number; baseOffset?: number; lastOffset?: number; timestamp?: number }>();
  });

  it("holds schemas that parse what they describe (the runtime half)", () => {
    const topic = { name: "t", topicId: "id", replicationFactor: 1, configs: {}, configOverrides: [], partitions: [] };
    expect(topicSchemaValue.parse(topic)).toEqual(topic);
  });
});
