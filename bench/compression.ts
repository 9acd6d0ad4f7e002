/**
 * Issue 27's codec rows (`npm run bench -- --compression`): each codec's encode and decode
 * speed (MB/s of records section, the median of 5 timed passes after a warm-up) and ratio, on
 * one batch of the bench's 216-byte records and one of realistic JSON events, in this Node
 * (the same JavaScript runs in workerd; libzstd is Node's own, the client's encoder on Node ≥ 22.15).
 * Measured before choosing the libraries (docs/api.md, Compression). Prints a markdown table.
 */
import { compressBytes, compressionCodecs, codecBits, decompressBytes, type CompressionCodec } from "../src/protocol/compression/codecs.ts";
import { encodeRecordBatch, type RecordInput } from "../src/protocol/record-batch.ts";
import { makeRecords } from "./payloads.ts";

const utf8 = new TextEncoder();
const bound = 8 * 1024 * 1024;

function benchRecords(): RecordInput[] {
  return makeRecords(4000).map((record) => ({ key: utf8.encode(record.key), value: utf8.encode(record.value), headers: [], timestamp: 1_700_000_000_000 }));
}

/** Realistic JSON values: a click stream (the server rows of bench/compression-server.ts send the same). */
export function jsonEvent(i: number): { key: string; value: string } {
  const paths = ["/", "/cart", "/checkout", "/products/shoes", "/products/hats", "/search"];
  const userId = `user-${(i * 7919) % 1000}`;
  const value = JSON.stringify({ userId, event: i % 5 === 0 ? "add_to_cart" : "page_view", path: paths[i % paths.length], ts: 1_700_000_000_000 + i * 37, ua: "Mozilla/5.0 (X11; Linux x86_64)", ms: 40 + ((i * 31) % 300) });
  return { key: userId, value };
}

function jsonEvents(): RecordInput[] {
  return Array.from({ length: 4000 }, (_, i) => {
    const { key, value } = jsonEvent(i);
    return { key: utf8.encode(key), value: utf8.encode(value), headers: [], timestamp: 1_700_000_000_000 + i };
  });
}

function medianMBps(bytes: number, run: () => void): number {
  for (let i = 0; i < 3; i++) run();
  const rates: number[] = [];
  for (let pass = 0; pass < 5; pass++) {
    const started = performance.now();
    let rounds = 0;
    while (performance.now() - started < 300) {
      run();
      rounds++;
    }
    rates.push((rounds * bytes) / 1e6 / ((performance.now() - started) / 1000));
  }
  return rates.sort((a, b) => a - b)[2]!;
}

export function compressionBench(): string {
  const rows = ["| payload | codec | ratio | encode MB/s | decode MB/s |", "|---|---|---|---|---|"];
  for (const [name, records] of [["216-byte bench records", benchRecords()], ["JSON events", jsonEvents()]] as const) {
    const section = encodeRecordBatch(records).subarray(61);
    for (const codec of compressionCodecs.filter((c) => c !== "none") as CompressionCodec[]) {
      const variants: [string, boolean][] = codec === "zstd" ? [["zstd (ours)", false], ["zstd (Node's libzstd)", true]] : [[codec, false]];
      for (const [label, preferNative] of variants) {
        const compressed = compressBytes(codec, section, { preferNative });
        const encode = medianMBps(section.length, () => compressBytes(codec, section, { preferNative }));
        const decode = medianMBps(section.length, () => decompressBytes(codecBits(codec), compressed, bound));
        rows.push(`| ${name} (${(section.length / 1024).toFixed(0)} KiB) | ${label} | ${(section.length / compressed.length).toFixed(2)} × | ${encode.toFixed(0)} | ${decode.toFixed(0)} |`);
      }
    }
  }
  return rows.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(compressionBench());
