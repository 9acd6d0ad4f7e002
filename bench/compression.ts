/**
 * Issue 27's codec rows (`npm run bench -- --compression`): each codec's encode and decode
 * speed (MB/s of records section, the median of 5 timed passes after a warm-up) and ratio, on
 * one batch of the bench's 216-byte records and one of realistic JSON events, in this Node
 * (the same JavaScript runs in workerd; libzstd is Node's own, the client's encoder on Node ≥ 22.15).
 * zstd is decoded twice: by fzstd (Node, the client) and by the Worker's decoder, libzstd as
 * WebAssembly (src/zstd-wasm-decoder.ts), compiled here from the same .wasm the Worker imports.
 * Measured before choosing the libraries (docs/api.md, Compression). Prints a markdown table.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { compressBytes, compressionCodecs, codecBits, decompressBytes, type CompressionCodec } from "../src/protocol/compression/codecs.ts";
import { useZstdDecoder } from "../src/protocol/compression/zstd-decode.ts";
import { zstdWasmDecoder } from "../src/protocol/compression/zstd-wasm.ts";
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

/** The Worker's zstd decoder, compiled from the .wasm file src/zstd-wasm-decoder.ts imports. */
function workerZstdDecoder() {
  const path = createRequire(import.meta.url).resolve("@foxglove/wasm-zstd/dist/wasm-zstd.wasm");
  // Node compiles from bytes (workers-types declares the constructor abstract: workerd forbids it).
  const compile = WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module;
  return zstdWasmDecoder(new compile(readFileSync(path)));
}

/** Decode MB/s of a zstd frame with the Worker's decoder installed (fzstd back after). */
function workerDecodeMBps(bytes: number, compressed: Uint8Array): number {
  const before = useZstdDecoder(workerZstdDecoder());
  try {
    return medianMBps(bytes, () => decompressBytes(codecBits("zstd"), compressed, bound));
  } finally {
    useZstdDecoder(before);
  }
}

export function compressionBench(): string {
  const rows = ["| payload | codec | ratio | encode MB/s | decode MB/s | decode MB/s, the Worker's zstd (libzstd as WebAssembly) |", "|---|---|---|---|---|---|"];
  for (const [name, records] of [["216-byte bench records", benchRecords()], ["JSON events", jsonEvents()]] as const) {
    const section = encodeRecordBatch(records).subarray(61);
    for (const codec of compressionCodecs.filter((c) => c !== "none") as CompressionCodec[]) {
      const variants: [string, boolean][] = codec === "zstd" ? [["zstd (ours)", false], ["zstd (Node's libzstd)", true]] : [[codec, false]];
      for (const [label, preferNative] of variants) {
        const compressed = compressBytes(codec, section, { preferNative });
        const encode = medianMBps(section.length, () => compressBytes(codec, section, { preferNative }));
        const decode = medianMBps(section.length, () => decompressBytes(codecBits(codec), compressed, bound));
        const workerDecode = codec === "zstd" ? workerDecodeMBps(section.length, compressed).toFixed(0) : "—";
        rows.push(`| ${name} (${(section.length / 1024).toFixed(0)} KiB) | ${label} | ${(section.length / compressed.length).toFixed(2)} × | ${encode.toFixed(0)} | ${decode.toFixed(0)} | ${workerDecode} |`);
      }
    }
  }
  return rows.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(compressionBench());
