import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { acknowledgementsOf, acknowledgementsOfText } from "../../../src/subscriptions/delivery-answer.ts";
import { isDue, settle, startBatch, type PartitionCursor } from "../../../src/subscriptions/delivery-plan.ts";
import { deadLetterRecord } from "../../../src/subscriptions/dead-letter-records.ts";
import { retryDelayMs } from "../../../src/subscriptions/retry-backoff.ts";
import { checkWebhookUrl } from "../../../src/subscriptions/target-origins.ts";
import { parseSignature, signWebhook, verifyWebhookSignature } from "../../../src/protocol/webhook-signature.ts";

describe("retry backoff", () => {
  it("waits retryDelayMs after the first delivery, doubling per retry, at most 60 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((deliveries) => retryDelayMs(1_000, deliveries))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(retryDelayMs(0, 3)).toBe(0);
    expect(retryDelayMs(1_000, 10_000)).toBe(60_000);
  });
});

describe("the webhook signature", () => {
  it("is t=<ms>,v1=<hex HMAC-SHA256 of '<t>.<body>'> under the secret", async () => {
    const body = JSON.stringify({ subscription: "s", topic: "t", records: [] });
    const expected = createHmac("sha256", "whsec").update(`1700000000000.${body}`).digest("hex");
    expect(await signWebhook("whsec", 1_700_000_000_000, body)).toBe(`t=1700000000000,v1=${expected}`);
  });

  it("verifies its own signature and refuses another body, another secret, a malformed header and an old one", async () => {
    const header = await signWebhook("whsec", 1_000, "body");
    expect(await verifyWebhookSignature("whsec", header, "body")).toBe(true);
    expect(await verifyWebhookSignature("whsec", header, "body!")).toBe(false);
    expect(await verifyWebhookSignature("other", header, "body")).toBe(false);
    expect(await verifyWebhookSignature("whsec", "t=1000", "body")).toBe(false);
    expect(await verifyWebhookSignature("whsec", null, "body")).toBe(false);
    expect(await verifyWebhookSignature("whsec", header, "body", { toleranceMs: 300_000, nowMs: 1_000 + 300_001 })).toBe(false);
    expect(await verifyWebhookSignature("whsec", header, "body", { toleranceMs: 300_000, nowMs: 1_000 + 300_000 })).toBe(true);
    expect(parseSignature(header)?.timestampMs).toBe(1_000);
  });
});

describe("SUBSCRIPTION_ORIGINS", () => {
  const refusal = (url: string, configured: string | undefined) => {
    try {
      checkWebhookUrl(url, configured);
      return undefined;
    } catch (error) {
      return (error as TributaryError).code;
    }
  };

  it("allows listed origins, and any https origin with *", () => {
    expect(refusal("https://a.example/hook", "https://a.example,https://b.example")).toBeUndefined();
    expect(refusal("https://b.example/x?y=1", " https://a.example , https://b.example/ ")).toBeUndefined();
    expect(refusal("https://c.example/hook", "*")).toBeUndefined();
  });

  it("allows loopback and http:// origins only when listed themselves, never through *", () => {
    expect(refusal("http://127.0.0.1:8080/hook", "*")).toBe("INVALID_REQUEST");
    expect(refusal("https://localhost/hook", "*")).toBe("INVALID_REQUEST");
    expect(refusal("https://[::1]/hook", "*")).toBe("INVALID_REQUEST");
    expect(refusal("http://c.example/hook", "*")).toBe("INVALID_REQUEST");
    expect(refusal("http://127.0.0.1:8080/hook", "http://127.0.0.1:8080")).toBeUndefined();
    expect(refusal("http://127.0.0.1:8081/hook", "http://127.0.0.1:8080")).toBe("INVALID_REQUEST");
  });

  it("allows nothing when empty or unset", () => {
    expect(refusal("https://a.example/hook", "")).toBe("INVALID_REQUEST");
    expect(refusal("https://a.example/hook", undefined)).toBe("INVALID_REQUEST");
  });
});

describe("a target's answer", () => {
  it("settles single records with acknowledgements, and anything else settles none singly", () => {
    expect(acknowledgementsOf({ acknowledgements: [{ partition: 1, offset: 5, type: "reject" }] })).toEqual(new Map([["1:5", "reject"]]));
    expect(acknowledgementsOf(undefined)).toEqual(new Map());
    expect(acknowledgementsOf({ acknowledgements: [{ partition: 1, offset: 5, type: "maybe" }] })).toEqual(new Map());
    expect(acknowledgementsOfText("OK")).toEqual(new Map());
    expect(acknowledgementsOfText('{"acknowledgements":[{"partition":0,"offset":2,"type":"release"}]}')).toEqual(new Map([["0:2", "release"]]));
  });
});

describe("ordered delivery of a partition", () => {
  const settings = { deliveryLimit: 3, retryDelayMs: 100 };
  const fresh: PartitionCursor = { partition: 0, position: 10, inFlight: null };
  const failed = { kind: "failed", error: "HTTP 500" } as const;
  const accepted = { kind: "answered", acks: new Map() } as const;

  it("moves past a batch the target accepts", () => {
    const cursor = startBatch(fresh, [10, 11, 12], 13);
    expect(isDue(cursor, 0)).toBe(true);
    expect(settle(cursor, accepted, settings, 0)).toEqual({ cursor: { partition: 0, position: 13, inFlight: null }, accepted: 3, retried: 0, deadLetters: [], deliveryCount: 1 });
  });

  it("keeps a failed batch in flight with the same offsets, due after the doubling delay, until the delivery limit", () => {
    let cursor = startBatch(fresh, [10, 11], 12);
    const first = settle(cursor, failed, settings, 1_000);
    expect(first.cursor.inFlight).toEqual({ offsets: [10, 11], endOffset: 12, deliveries: 1, retryAtMs: 1_100 });
    expect(first.retried).toBe(2);
    expect(isDue(first.cursor, 1_099)).toBe(false);
    expect(isDue(first.cursor, 1_100)).toBe(true);
    cursor = first.cursor;
    const second = settle(cursor, failed, settings, 2_000);
    expect(second.cursor.inFlight?.retryAtMs).toBe(2_200);
    const third = settle(second.cursor, failed, settings, 3_000);
    expect(third).toEqual({ cursor: { partition: 0, position: 12, inFlight: null }, accepted: 0, retried: 0, deadLetters: [{ offsets: [10, 11], reason: "delivery-limit" }], deliveryCount: 3 });
  });

  it("dead-letters rejected records at once and redelivers only released ones", () => {
    const cursor = startBatch(fresh, [10, 11, 12, 13], 14);
    const acks = new Map([["0:11", "reject"], ["0:12", "release"]] as const);
    const settled = settle(cursor, { kind: "answered", acks }, settings, 0);
    expect(settled).toMatchObject({ accepted: 2, retried: 1, deadLetters: [{ offsets: [11], reason: "rejected" }] });
    expect(settled.cursor).toEqual({ partition: 0, position: 10, inFlight: { offsets: [12], endOffset: 14, deliveries: 1, retryAtMs: 100 } });
  });

  it("moves past records a read skipped (control batches) without a delivery", () => {
    expect(startBatch(fresh, [], 15)).toEqual({ partition: 0, position: 15, inFlight: null });
  });
});

describe("a dead letter", () => {
  it("keeps key, value, headers and timestamp, and adds the tributary.dlq headers", () => {
    const utf8 = new TextEncoder();
    const record = { offset: 7, timestamp: 5, key: utf8.encode("k"), value: new Uint8Array([0, 255]), headers: [{ key: "h", value: utf8.encode("v") }, { key: "tributary.dlq.reason", value: utf8.encode("forged") }] };
    expect(deadLetterRecord(record, { topic: "orders", partition: 2, deliveryCount: 5, reason: "delivery-limit" })).toEqual({
      key: "aw==",
      value: "AP8=",
      timestamp: 5,
      headers: [
        ["h", "v"],
        ["tributary.dlq.topic", "orders"],
        ["tributary.dlq.partition", "2"],
        ["tributary.dlq.offset", "7"],
        ["tributary.dlq.delivery-count", "5"],
        ["tributary.dlq.reason", "delivery-limit"],
      ],
    });
  });
});
