/**
 * The gateway's translation of a transactional producer's identity (docs/gateway.md,
 * Transactions): a client of EndTxn v0–4 keeps its epoch after an end, the server bumped it; the
 * gateway sends the bumped one — with the partition's sequences from 0 — for requests read after
 * the end took effect, and never for one read before it (a late write is refused, not counted
 * into the next transaction).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { gatewayTransactionalIdsMax } from "../../../../src/limits.ts";
import { concatBytes } from "../../../../src/protocol/bytes.ts";
import { encodeRecordBatch, readBatchHeader, splitBatches, verifyBatchCrc } from "../../../../src/protocol/record-batch.ts";
import { rewriteBatchIdentity } from "../../../../src/gateway/transactions/batch-identity.ts";
import { ended, forgetAllProducers, initialized, mappingFor } from "../../../../src/gateway/transactions/producer-mapping.ts";

const client = { producerId: 7, producerEpoch: 2 };

function batch(baseSequence: number, records = 2, identity = client): Uint8Array {
  return encodeRecordBatch(
    Array.from({ length: records }, (_, i) => ({ value: new TextEncoder().encode(`v${baseSequence + i}`), timestamp: 1_700_000_000_000, key: null, headers: [] })),
    { ...identity, baseSequence, transactional: true },
  );
}

const headersOf = (bytes: Uint8Array) => [...splitBatches(bytes)].map(({ header, start }) => ({ ...header, crcHolds: verifyBatchCrc(bytes, start) }));

/** The client's identity after init at read order 10, its first transaction ended at read order 20 (the server answered epoch 3). */
function afterOneEnd(): void {
  initialized("t", client, 10);
  const used = mappingFor("t", client, 11)!;
  ended("t", client, used, { producerId: 7, producerEpoch: 3 }, true, 15, 20);
}

beforeEach(() => forgetAllProducers());

describe("after an init", () => {
  it("the client's identity is the server's: batches are left as they are", () => {
    initialized("t", client, 10);
    const mapping = mappingFor("t", client, 11)!;
    expect(mapping.server).toEqual(client);
    const bytes = batch(5);
    const before = Uint8Array.from(bytes);
    rewriteBatchIdentity(bytes, mapping, "out\u00000");
    expect(bytes).toEqual(before);
  });

  it("an identity the gateway did not answer goes as the client sent it", () => {
    initialized("t", client, 10);
    expect(mappingFor("t", { producerId: 7, producerEpoch: 1 }, 11)).toBeUndefined();
    expect(mappingFor("other", client, 11)).toBeUndefined();
  });
});

describe("after an end", () => {
  it("a request read after it gets the bumped epoch, each partition's sequences from 0, the CRC computed again", () => {
    afterOneEnd();
    const mapping = mappingFor("t", client, 21)!;
    expect(mapping.server).toEqual({ producerId: 7, producerEpoch: 3 });
    const first = concatBytes([batch(5), batch(7, 3)]);
    rewriteBatchIdentity(first, mapping, "out\u00000");
    expect(headersOf(first).map(({ producerId, producerEpoch, baseSequence, crcHolds }) => ({ producerId, producerEpoch, baseSequence, crcHolds }))).toEqual([
      { producerId: 7, producerEpoch: 3, baseSequence: 0, crcHolds: true },
      { producerId: 7, producerEpoch: 3, baseSequence: 2, crcHolds: true },
    ]);
    // The next request to the partition continues; another partition starts at its own first sequence.
    const next = batch(10);
    rewriteBatchIdentity(next, mappingFor("t", client, 22)!, "out\u00000");
    expect(readBatchHeader(next).baseSequence).toBe(5);
    const other = batch(40);
    rewriteBatchIdentity(other, mappingFor("t", client, 23)!, "out\u00001");
    expect(readBatchHeader(other).baseSequence).toBe(0);
    // A retry of the first request is the same write on the server (its duplicate).
    const retry = batch(5);
    rewriteBatchIdentity(retry, mappingFor("t", client, 24)!, "out\u00000");
    expect(readBatchHeader(retry)).toMatchObject({ producerEpoch: 3, baseSequence: 0 });
  });

  it("a request read before it took effect keeps its own transaction's epoch, however late it is handled: the server refuses it", () => {
    afterOneEnd();
    // Read at 19 (before the end's answer at 20), handled after it: the ended transaction's identity.
    expect(mappingFor("t", client, 19)!.server).toEqual(client);
    const late = batch(9);
    rewriteBatchIdentity(late, mappingFor("t", client, 19)!, "out\u00000");
    expect(readBatchHeader(late)).toMatchObject({ producerEpoch: 2, baseSequence: 9 });
    // After a second end, a request read before the first one goes untranslated (older still).
    ended("t", client, mappingFor("t", client, 30)!, { producerId: 7, producerEpoch: 4 }, false, 30, 40);
    expect(mappingFor("t", client, 35)!.server).toEqual({ producerId: 7, producerEpoch: 3 });
    expect(mappingFor("t", client, 19)).toBeUndefined();
    expect(mappingFor("t", client, 41)!.server).toEqual({ producerId: 7, producerEpoch: 4 });
  });

  it("an end read before a later end took effect changes nothing: the transaction begun since keeps its sequences", () => {
    afterOneEnd();
    const current = mappingFor("t", client, 21)!;
    rewriteBatchIdentity(batch(5), current, "out\u00000");
    // A retried end, read at 18 and answered by the server only now (the same answer: a retry).
    ended("t", client, mappingFor("t", client, 18), { producerId: 7, producerEpoch: 3 }, true, 18, 30);
    expect(mappingFor("t", client, 31)).toBe(current);
    const next = batch(7);
    rewriteBatchIdentity(next, mappingFor("t", client, 31)!, "out\u00000");
    expect(readBatchHeader(next).baseSequence).toBe(2);
  });

  it("an end moving to a new producer id (the epoch at its end) rewrites the producer id too", () => {
    initialized("t", client, 10);
    ended("t", client, mappingFor("t", client, 11)!, { producerId: 99, producerEpoch: 0 }, true, 11, 20);
    const bytes = batch(3);
    rewriteBatchIdentity(bytes, mappingFor("t", client, 21)!, "out\u00000");
    expect(headersOf(bytes)[0]).toMatchObject({ producerId: 99, producerEpoch: 0, baseSequence: 0, crcHolds: true });
  });

  it("a batch whose CRC does not hold, or of another producer, is left for the partition to judge", () => {
    afterOneEnd();
    const mapping = mappingFor("t", client, 21)!;
    const corrupt = batch(5);
    corrupt[corrupt.length - 1]! ^= 0xff;
    const before = Uint8Array.from(corrupt);
    rewriteBatchIdentity(corrupt, mapping, "out\u00000");
    expect(corrupt).toEqual(before);
    const foreign = batch(5, 2, { producerId: 8, producerEpoch: 2 });
    const foreignBefore = Uint8Array.from(foreign);
    rewriteBatchIdentity(foreign, mapping, "out\u00000");
    expect(foreign).toEqual(foreignBefore);
  });
});

it(`keeps the ${gatewayTransactionalIdsMax} transactional ids used last`, () => {
  for (let i = 0; i <= gatewayTransactionalIdsMax; i++) initialized(`t${i}`, client, 10);
  expect(mappingFor("t0", client, 11)).toBeUndefined();
  expect(mappingFor("t1", client, 11)).toBeDefined();
  expect(mappingFor(`t${gatewayTransactionalIdsMax}`, client, 11)).toBeDefined();
});
