import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { Acks as ClientAcks, CreateTokenRequest, TokenInfo } from "../../../src/client/index.ts";
import type { Acks as SchemaAcks } from "../../../src/protocol/schemas.ts";
import type { createTokenSchema, createWriteTokenSchema } from "../../../src/auth/token-schemas.ts";
import type { TransactionDescription, TransactionSummary, WriteTokenOptions } from "../../../src/client/index.ts";
import type { transactionDescriptionSchema, transactionListSchema } from "../../../src/protocol/transaction-schemas.ts";
import type { TokenView } from "../../../src/contracts/controller-api.ts";
import * as client from "../../../src/client/index.ts";

describe("client types", () => {
  it("spells acks as the router's schema does", () => {
    expectTypeOf<ClientAcks>().toEqualTypeOf<SchemaAcks>();
  });

  it("spells token requests as the router's schemas do, and token listings as the controller answers them", () => {
    expectTypeOf<CreateTokenRequest>().toEqualTypeOf<z.input<typeof createTokenSchema>>();
    expectTypeOf<WriteTokenOptions>().toEqualTypeOf<z.input<typeof createWriteTokenSchema>>();
    expectTypeOf<TokenInfo>().toEqualTypeOf<TokenView>();
  });

  it("spells transactions as the router's answer schemas do", () => {
    expectTypeOf<TransactionDescription>().toEqualTypeOf<z.output<typeof transactionDescriptionSchema>>();
    expectTypeOf<TransactionSummary>().toEqualTypeOf<z.output<typeof transactionListSchema>["transactions"][number]>();
  });

  it("exports the documented entry points", () => {
    expect(Object.keys(client).sort()).toEqual(
      ["Admin", "Consumer", "GroupsAdmin", "PartitionHandle", "Producer", "RejectRecord", "Secret", "ShareConsumer", "ShareGroupsAdmin", "TokensAdmin", "TopicHandle", "TopicsAdmin", "Tributary", "TributaryError", "backoffMs", "defaultRetryPolicy", "isRetriable", "isTributaryError", "textOf", "unwrapResult",
        // Push subscriptions (src/client/subscriptions-admin.ts) and a webhook receiver's check.
        "SubscriptionsAdmin", "signatureHeader", "verifyWebhookSignature",
        // Transactions (src/client/transaction.ts, transactions-admin.ts).
        "Transaction", "TransactionsAdmin"].sort(),
    );
  });
});
