/**
 * Inside workerd the Worker decodes zstd with libzstd as WebAssembly (src/zstd-wasm-decoder.ts),
 * the .wasm imported as a module as wrangler bundles it: the decoder installed once the Worker
 * has loaded is libzstd's, and a large batch of Huffman-coded literals (the records fzstd was
 * slowest on) goes through produce's validation and the JSON fetch byte for byte.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { zstdDecoderName, zstdDecompress } from "../../../src/protocol/compression/zstd-decode.ts";
import { zstdCompress } from "../../../src/protocol/compression/zstd-encode.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { batchCodec, compressBatch } from "../../../src/protocol/record-batch-compression.ts";
import { baseUrl, createTopic, readAll, uniqueTopic } from "../support/http.ts";
import { produceBinary, storedBatches } from "./support.ts";

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Random letters, as the bench's 216-byte records: few matches, nearly every byte a Huffman-coded literal. */
function letterValues(count: number, length: number): string[] {
  let state = 12345;
  return Array.from({ length: count }, () => Array.from({ length }, () => letters[((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) >>> 8) % 52]).join(""));
}

describe("the Worker's zstd decoder", () => {
  it("is libzstd as WebAssembly once the Worker has loaded", async () => {
    expect((await exports.default.fetch(new Request(`${baseUrl}/v1/topics`))).status).toBe(200);
    expect(zstdDecoderName()).toBe("libzstd (WebAssembly)");
    // It decodes here: a 3 MiB frame of several blocks, and a truncated one is an error value.
    const big = new TextEncoder().encode(letterValues(3 * 1024, 1024).join(""));
    const frame = zstdCompress(big);
    expect(Array.from(zstdDecompress(frame, 8 * 1024 * 1024).subarray(0, 4096))).toEqual(Array.from(big.subarray(0, 4096)));
    expect(zstdDecompress(frame, 8 * 1024 * 1024)).toHaveLength(big.length);
    expect(() => zstdDecompress(frame.subarray(0, frame.length - 100), 8 * 1024 * 1024)).toThrow(/zstd/);
  });

  it("a 4,000-record zstd batch of random letters is produced and read back as JSON, every value as sent", async () => {
    const topic = uniqueTopic("zstd-wasm");
    await createTopic(topic);
    const values = letterValues(4000, 216);
    const utf8 = new TextEncoder();
    const batch = compressBatch(encodeRecordBatch(values.map((value, i) => ({ key: utf8.encode(`k${i}`), value: utf8.encode(value), headers: [], timestamp: 1_700_000_000_000 + i }))), "zstd");
    expect(batch.length).toBeGreaterThan(500_000);
    expect((await produceBinary(topic, batch)).status).toBe(200);
    const stored = await storedBatches(topic);
    expect(stored.map((bytes) => batchCodec({ attributes: (bytes[21]! << 8) | bytes[22]! }))).toEqual(["zstd"]);
    const records = await readAll(topic, 0);
    expect(records.map((record) => record.value)).toEqual(values);
    expect(records.at(-1)).toMatchObject({ offset: 3999, key: "k3999" });
  });
});
