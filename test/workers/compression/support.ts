/** Helpers of the compression tests: JSON-like records, binary produce, the stored batches as the binary fetch hands them out. */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { splitBatches, type RecordInput } from "../../../src/protocol/record-batch.ts";
import { baseUrl, readResponse } from "../support/http.ts";

const utf8 = new TextEncoder();

export function jsonRecords(count: number, from = 0): RecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    key: utf8.encode(`user-${(from + i) % 40}`),
    value: utf8.encode(JSON.stringify({ n: from + i, event: "page_view", path: `/products/${(from + i) % 30}` })),
    headers: [{ key: "source", value: utf8.encode("web") }],
    timestamp: Date.now(),
  }));
}

export async function produceBinary(topic: string, body: Uint8Array, partition = 0) {
  const response = await exports.default.fetch(
    new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records?acks=all`, { method: "POST", headers: { "content-type": recordBatchContentType }, body }),
  );
  return readResponse(response);
}

/** The stored batches from `offset`, as the binary fetch hands them out; `region` reads from that replica. */
export async function storedBatches(topic: string, offset = 0, region?: string): Promise<Uint8Array[]> {
  const headers: Record<string, string> = { accept: recordBatchContentType, ...(region ? { "tributary-region": region } : {}) };
  const response = await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?offset=${offset}&maxBytes=8388608`, { headers }));
  expect(response.status).toBe(200);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return [...splitBatches(bytes)].map(({ start, end }) => bytes.slice(start, end));
}

