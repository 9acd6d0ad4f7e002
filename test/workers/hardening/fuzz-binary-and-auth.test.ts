/**
 * Bad input can't hurt (issue 8): random and corrupted record batches sent to the binary
 * produce route are refused with a 4xx and write nothing, and random Authorization headers
 * are refused with 401 UNAUTHENTICATED — never a 500.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { createTopic, highWatermarks, request, readResponse, uniqueTopic } from "../support/http.ts";
import { exports } from "cloudflare:workers";
import { securedCall } from "../support/secured.ts";

const utf8 = new TextEncoder();
const magicByteAt = 16;

function validBatch(values: string[]): Uint8Array {
  return encodeRecordBatch(values.map((value, index) => ({ key: utf8.encode(`k${index}`), value: utf8.encode(value), headers: [], timestamp: Date.now() })));
}

async function produceBytes(topic: string, bytes: Uint8Array) {
  const sent = request("POST", `/v1/topics/${topic}/partitions/0/records`, undefined, { "content-type": recordBatchContentType });
  return readResponse(await exports.default.fetch(new Request(sent, { body: bytes })));
}

describe("fuzzed record batches", () => {
  it("refuse random bytes and corrupted batches with a 4xx JSON error and write nothing", async () => {
    const topic = uniqueTopic("fuzz-batches");
    await createTopic(topic);
    const corrupted = fc
      .tuple(fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 5 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }))
      .map(([values, flips]) => {
        const bytes = validBatch(values);
        // From the magic byte on: baseOffset and partitionLeaderEpoch (bytes 0–15 but the length)
        // are outside the CRC, and the broker sets both itself, as Kafka's does.
        for (const [at, mask] of flips) bytes[magicByteAt + (at % (bytes.byteLength - magicByteAt))]! ^= mask;
        return bytes;
      });
    const truncated = fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 5 }).chain((values) => {
      const bytes = validBatch(values);
      return fc.integer({ min: 0, max: bytes.byteLength - 1 }).map((length) => bytes.subarray(0, length));
    });
    const inputs = fc.oneof(fc.uint8Array({ maxLength: 300 }), corrupted, truncated);
    await fc.assert(
      fc.asyncProperty(inputs, async (bytes) => {
        const response = await produceBytes(topic, bytes);
        const what = `${bytes.byteLength} bytes → ${response.text}`;
        expect(response.status, what).toBeGreaterThanOrEqual(400);
        expect(response.status, what).toBeLessThan(500);
        expect(response.body?.error?.code, what).toEqual(expect.any(String));
      }),
      { numRuns: 300, seed: 8 },
    );
    expect(await highWatermarks(topic)).toEqual([0]);
    // The route still takes a good batch afterwards.
    expect((await produceBytes(topic, validBatch(["fine"]))).status).toBe(200);
    expect(await highWatermarks(topic)).toEqual([1]);
  });
});

describe("fuzzed credentials", () => {
  it("answer 401 UNAUTHENTICATED to any Authorization header that is not a token", async () => {
    const schemes = fc.constantFrom("Bearer ", "bearer ", "Basic ", "", "Bearer  ", "Bearer trb_", "Bearer trw_");
    const header = fc.tuple(schemes, fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: "binary-ascii", maxLength: 80 }), fc.stringMatching(/^[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)));
    await fc.assert(
      fc.asyncProperty(header, async ([scheme, text]) => {
        const value = `${scheme}${text}`.replace(/[\r\n\0]/g, "");
        let response;
        try {
          response = await securedCall("GET", "/v1/topics", { authorization: value });
        } catch (error) {
          if (error instanceof TypeError) return; // not a valid header value at all: no request can carry it
          throw error;
        }
        expect({ status: response.status, code: response.body?.error?.code }, `${JSON.stringify(value)} → ${response.text}`).toEqual({ status: 401, code: "UNAUTHENTICATED" });
      }),
      { numRuns: 300, seed: 9 },
    );
  });
});
