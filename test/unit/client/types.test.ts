import { describe, expect, expectTypeOf, it } from "vitest";
import type { Acks as ClientAcks } from "../../../src/client/index.ts";
import type { Acks as SchemaAcks } from "../../../src/protocol/schemas.ts";
import * as client from "../../../src/client/index.ts";

describe("client types", () => {
  it("spells acks as the router's schema does", () => {
    expectTypeOf<ClientAcks>().toEqualTypeOf<SchemaAcks>();
  });

  it("exports the documented entry points", () => {
    expect(Object.keys(client).sort()).toEqual(
      ["Admin", "Consumer", "GroupsAdmin", "Producer", "Secret", "TopicHandle", "TopicsAdmin", "Tributary", "TributaryError", "backoffMs", "defaultRetryPolicy", "isRetriable", "isTributaryError", "textOf", "unwrapResult"].sort(),
    );
  });
});
