/**
 * The gateway's share sessions (src/gateway/share/sessions.ts): KIP-932's session epochs, and
 * Kafka's offset acknowledgements mapped onto the leases of the fetches that handed the records
 * out; and a fetch's records as ShareFetch answers them (share-records.ts).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { decodeRecordBatch } from "../../../src/protocol/record-batch-decode.ts";
import { kafkaErrors } from "../../../src/gateway/kafka-errors.ts";
import { clearShareSessions, hold, leaseAcknowledgements, nextEpoch, partitionKey, releaseAll, sessionFor, type ShareSession } from "../../../src/gateway/share/sessions.ts";
import { sharedPartition, type SharedRecord } from "../../../src/gateway/share/share-records.ts";

beforeEach(() => clearShareSessions());

function opened(): ShareSession {
  const found = sessionFor("g", "m", 0);
  if (!found.ok) throw new Error(found.message);
  return found.session;
}

describe("share session epochs", () => {
  it("0 opens a session whose next epoch is 1; each request moves it by one; a wrong or unknown one is refused", () => {
    opened();
    expect(sessionFor("g", "m", 2)).toMatchObject({ ok: false, errorCode: kafkaErrors.INVALID_SHARE_SESSION_EPOCH });
    expect(sessionFor("g", "m", 1)).toMatchObject({ ok: true });
    expect(sessionFor("g", "m", 1)).toMatchObject({ ok: false, errorCode: kafkaErrors.INVALID_SHARE_SESSION_EPOCH });
    expect(sessionFor("g", "m", 2)).toMatchObject({ ok: true });
    expect(sessionFor("g", "other", 1)).toMatchObject({ ok: false, errorCode: kafkaErrors.SHARE_SESSION_NOT_FOUND });
    expect(nextEpoch(0x7fffffff)).toBe(1);
  });

  it("-1 closes the session (a later request finds none); 0 again replaces a session, answering the one it replaced", () => {
    const first = opened();
    const again = sessionFor("g", "m", 0);
    expect(again).toMatchObject({ ok: true, previous: first });
    expect(sessionFor("g", "m", -1)).toMatchObject({ ok: true });
    expect(sessionFor("g", "m", 1)).toMatchObject({ ok: false, errorCode: kafkaErrors.SHARE_SESSION_NOT_FOUND });
  });
});

describe("offset acknowledgements onto leases", () => {
  it("groups offsets by lease and type, skips gaps, and forgets what it acknowledged", () => {
    const session = opened();
    hold(session, partitionKey("t", 0), [10, 11, 12], "lease-a");
    hold(session, partitionKey("t", 0), [13, 14], "lease-b");
    const batches = [
      { firstOffset: 10n, lastOffset: 13n, acknowledgeTypes: [1, 0, 3, 1] },
      { firstOffset: 14n, lastOffset: 14n, acknowledgeTypes: [2] },
    ];
    expect(leaseAcknowledgements(session, "t", 0, batches)).toEqual({
      acknowledgements: [
        { lease: "lease-a", topic: "t", partition: 0, offsets: [10], type: "accept" },
        { lease: "lease-a", topic: "t", partition: 0, offsets: [12], type: "reject" },
        { lease: "lease-b", topic: "t", partition: 0, offsets: [13], type: "accept" },
        { lease: "lease-b", topic: "t", partition: 0, offsets: [14], type: "release" },
      ],
    });
    expect(session.heldCount).toBe(1); // 11 was a gap: still held
    expect(releaseAll(session)).toEqual([{ lease: "lease-a", topic: "t", partition: 0, offsets: [11], type: "release" }]);
    expect(session.heldCount).toBe(0);
  });

  it("an offset the session does not hold, or a renew (4), fails the whole partition and acknowledges nothing of it", () => {
    const session = opened();
    hold(session, partitionKey("t", 0), [1, 2], "lease-a");
    expect(leaseAcknowledgements(session, "t", 0, [{ firstOffset: 1n, lastOffset: 3n, acknowledgeTypes: [1] }])).toMatchObject({ acknowledgements: [], error: { code: kafkaErrors.INVALID_RECORD_STATE } });
    expect(leaseAcknowledgements(session, "t", 0, [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [4] }])).toMatchObject({ acknowledgements: [], error: { code: kafkaErrors.INVALID_REQUEST } });
    expect(leaseAcknowledgements(session, "t", 0, [{ firstOffset: 1n, lastOffset: 2n, acknowledgeTypes: [1, 1, 1] }])).toMatchObject({ error: { code: kafkaErrors.INVALID_REQUEST } });
    expect(session.heldCount).toBe(2);
  });
});

describe("a share fetch's records as ShareFetch answers them", () => {
  const record = (offset: number, deliveryCount: number): SharedRecord => ({
    topic: "t",
    partition: 0,
    offset,
    timestamp: 1_700_000_000_000 + offset,
    key: Buffer.from(`k${offset}`).toString("base64"),
    value: Buffer.from([0, 255, offset]).toString("base64"),
    headers: { h: "v" },
    deliveryCount,
  });

  it("one batch per run of consecutive offsets, at their own offsets; acquired ranges split by delivery count", () => {
    const { batches, acquiredRecords } = sharedPartition([record(7, 1), record(4, 2), record(5, 2), record(6, 1)].concat([record(9, 1)]));
    expect(acquiredRecords).toEqual([
      { firstOffset: 4n, lastOffset: 5n, deliveryCount: 2 },
      { firstOffset: 6n, lastOffset: 7n, deliveryCount: 1 },
      { firstOffset: 9n, lastOffset: 9n, deliveryCount: 1 },
    ]);
    const decoded = batches.flatMap((batch) => decodeRecordBatch(batch).records);
    expect(decoded.map(({ offset }) => offset)).toEqual([4, 5, 6, 7, 9]);
    expect(batches).toHaveLength(2);
    expect(decoded[0]).toMatchObject({ key: new Uint8Array(Buffer.from("k4")), value: new Uint8Array([0, 255, 4]), timestamp: 1_700_000_000_004, headers: [{ key: "h", value: new Uint8Array(Buffer.from("v")) }] });
  });
});
