/**
 * The share consumer's wire shapes are the router's (src/protocol/share-schemas.ts): written out
 * in the client, whose build takes no zod, and checked here to stay the same.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type {
  ShareAcknowledgement,
  ShareAcknowledgementResult,
  ShareGroupConfigs,
  ShareGroupDescription,
  ShareGroupSummary,
  ShareResetRequest,
} from "../../../src/client/index.ts";
import type { LeasedAcknowledgement } from "../../../src/client/share-acks.ts";
import type { FetchAnswer } from "../../../src/client/share-consumer.ts";
import type {
  shareAcknowledgeResultsSchema,
  shareAcknowledgementSchema,
  shareFetchAcknowledgementSchema,
  shareFetchResponseSchema,
  shareGroupConfigsResponseSchema,
  shareGroupDescriptionSchema,
  shareGroupListSchema,
  shareResetSchema,
} from "../../../src/protocol/share-schemas.ts";

describe("share types", () => {
  it("sends acknowledgements and resets as the router's schemas read them", () => {
    expectTypeOf<ShareAcknowledgement>().toEqualTypeOf<z.input<typeof shareAcknowledgementSchema>>();
    expectTypeOf<LeasedAcknowledgement>().toEqualTypeOf<z.input<typeof shareFetchAcknowledgementSchema>>();
    expectTypeOf<ShareResetRequest>().toEqualTypeOf<z.input<typeof shareResetSchema>>();
  });

  it("reads the router's answers", () => {
    expectTypeOf<z.output<typeof shareFetchResponseSchema>>().toExtend<FetchAnswer>();
    expectTypeOf<z.infer<typeof shareAcknowledgeResultsSchema>[number]>().toExtend<ShareAcknowledgementResult>();
    expectTypeOf<z.infer<typeof shareGroupDescriptionSchema>>().toExtend<ShareGroupDescription>();
    expectTypeOf<ShareGroupConfigs>().toEqualTypeOf<z.infer<typeof shareGroupConfigsResponseSchema>>();
    expectTypeOf<ShareGroupSummary>().toEqualTypeOf<z.infer<typeof shareGroupListSchema>["groups"][number]>();
  });
});
