/** A share group's configs (src/share/share-configs.ts): names, bounds, defaults. */
import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { effectiveShareGroupConfigs, mergeShareGroupConfigs, sharePartitionConfigOf } from "../../../src/share/share-configs.ts";

describe("share group configs", () => {
  it("defaults to Kafka's: a 30 s lock, 5 deliveries, latest, no dead-letter topic; read_committed (Kafka's is read_uncommitted)", () => {
    expect(effectiveShareGroupConfigs({})).toEqual({
      "record.lock.duration.ms": "30000",
      "delivery.count.limit": "5",
      "auto.offset.reset": "latest",
      "dead.letter.topic": "",
      "share.isolation.level": "read_committed",
    });
    expect(sharePartitionConfigOf({})).toEqual({ lockDurationMs: 30_000, deliveryCountLimit: 5, deadLetter: false, deadLetterTopic: null, autoOffsetReset: "latest", isolation: "read_committed" });
  });

  it("takes share.isolation.level read_uncommitted and refuses another value", () => {
    expect(sharePartitionConfigOf(mergeShareGroupConfigs({}, { "share.isolation.level": "read_uncommitted" })).isolation).toBe("read_uncommitted");
    expect(() => mergeShareGroupConfigs({}, { "share.isolation.level": "serializable" })).toThrow(TributaryError);
  });

  it("takes values at their bounds, numbers as their string, and null as the default", () => {
    const merged = mergeShareGroupConfigs({ "delivery.count.limit": "3" }, { "record.lock.duration.ms": 1_000, "delivery.count.limit": null, "dead.letter.topic": "dlq.orders" });
    expect(merged).toEqual({ "record.lock.duration.ms": "1000", "dead.letter.topic": "dlq.orders" });
    expect(mergeShareGroupConfigs({}, { "record.lock.duration.ms": "3600000", "delivery.count.limit": "10" })).toMatchObject({ "delivery.count.limit": "10" });
    expect(sharePartitionConfigOf(merged)).toMatchObject({ deadLetter: true, deadLetterTopic: "dlq.orders" });
  });

  it.each([
    { "record.lock.duration.ms": "999" },
    { "record.lock.duration.ms": "3600001" },
    { "delivery.count.limit": "1" },
    { "delivery.count.limit": "11" },
    { "delivery.count.limit": "2.5" },
    { "auto.offset.reset": "none" },
    { "dead.letter.topic": "" },
    { "dead.letter.topic": "a/b" },
    { "dead.letter.topic": 7 },
    { "group.share.unknown": "1" },
  ])("refuses %j with INVALID_CONFIG", (changes) => {
    expect(() => mergeShareGroupConfigs({}, changes)).toThrow(TributaryError);
    try {
      mergeShareGroupConfigs({}, changes);
    } catch (error) {
      expect((error as TributaryError).code).toBe("INVALID_CONFIG");
    }
  });
});
