import { describe, expect, it } from "vitest";
import { ClientLog } from "../../../src/client/logger.ts";
import { ShareAcks } from "../../../src/client/share-acks.ts";

function acks() {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  const book = new ShareAcks(new ClientLog({ debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") }, "debug"));
  return { book, lines };
}

const records = (partition: number, ...offsets: number[]) => offsets.map((offset) => ({ topic: "jobs", partition, offset }));

describe("ShareAcks", () => {
  it("groups what it sends per lease, partition and type, and forgets the records sent", () => {
    const { book } = acks();
    book.hold("a", 1_000, [...records(0, 0, 1, 2), ...records(1, 0)]);
    book.hold("b", 2_000, records(0, 3));
    for (const [record, type] of [[records(0, 0)[0], "accept"], [records(1, 0)[0], "accept"], [records(0, 3)[0], "reject"], [records(0, 2)[0], "accept"]] as const) {
      book.acknowledge(record!, type);
    }
    expect(book.unacknowledged).toBe(1); // 0@1
    expect(book.take()).toEqual([
      { lease: "a", topic: "jobs", partition: 0, offsets: [0, 2], type: "accept" },
      { lease: "a", topic: "jobs", partition: 1, offsets: [0], type: "accept" },
      { lease: "b", topic: "jobs", partition: 0, offsets: [3], type: "reject" },
    ]);
    expect(book.take()).toEqual([]);
    expect(() => book.acknowledge(records(0, 0)[0]!, "accept")).toThrow("is not held by this consumer");
    expect(() => book.acknowledge(records(0, 1)[0]!, "done" as never)).toThrow("acknowledge: type is accept, release or reject, got done");
  });

  it("drops held records whose lease expired unacknowledged, saying so once", () => {
    const { book, lines } = acks();
    book.hold("a", 1_000, records(0, 0, 1));
    book.hold("b", 5_000, records(0, 2));
    book.acknowledge(records(0, 0)[0]!, "accept");
    expect(book.nextExpiry()).toBe(1_000);
    expect(book.dropExpired(1_000)).toBe(1);
    expect(book.unacknowledged).toBe(1);
    expect(book.nextExpiry()).toBe(5_000);
    expect(book.pending).toBe(1); // the acknowledged one is still sent: the server decides
    expect(lines).toEqual(["warn: the lease of 1 record(s) expired before they were acknowledged; the server delivers them again"]);
  });

  it("says INVALID_RECORD_STATE quietly (info) for acknowledgements of a request cut short, as a warning otherwise", () => {
    const { book, lines } = acks();
    book.hold("a", 1_000, [...records(0, 0), ...records(1, 0)]);
    book.acknowledge(records(0, 0)[0]!, "accept");
    book.acknowledge(records(1, 0)[0]!, "accept");
    const sent = book.take();
    book.restore(sent.filter((ack) => ack.partition === 0));
    expect(book.take()).toEqual([sent[0]]);
    const refusal = { code: "INVALID_RECORD_STATE", message: "not held" };
    book.settle(sent, [{ topic: "jobs", partition: 0, error: refusal }, { topic: "jobs", partition: 1, error: refusal }]);
    expect(lines).toEqual([
      "info: acknowledgements of 1 record(s) of jobs/0 were refused (not held): a request cut short had applied them, or their lease expired",
      "warn: acknowledgements of 1 record(s) of jobs/1 were refused: INVALID_RECORD_STATE: not held (their lease expired or they are no longer held; the server delivers them again)",
    ]);
  });

  it("releases every held record not acknowledged", () => {
    const { book } = acks();
    book.hold("a", 1_000, records(0, 0, 1, 2));
    book.acknowledge(records(0, 1)[0]!, "reject");
    expect(book.releaseUnacknowledged()).toBe(2);
    expect(book.take()).toEqual([
      { lease: "a", topic: "jobs", partition: 0, offsets: [1], type: "reject" },
      { lease: "a", topic: "jobs", partition: 0, offsets: [0, 2], type: "release" },
    ]);
  });
});
