/**
 * The four codecs at the byte level (issue 27): ours read what other implementations write
 * and they read ours — Node's zlib (gzip; zstd from libzstd where Node has it) and
 * @platformatic/kafka's WebAssembly lz4 and snappy — and every malformed input is a
 * CompressionError value: truncated or corrupt bytes, bombs past the bound, unknown codecs.
 */
import { lz4Compress as theirLz4Compress, lz4Decompress as theirLz4Decompress, snappyCompress as theirSnappyCompress, snappyDecompress as theirSnappyDecompress } from "@platformatic/wasm-utils";
import fc from "fast-check";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32, xxhash32 } from "../../../../src/protocol/compression/checksums.ts";
import { compressBytes, compressionCodecs, decompressBytes, codecBits } from "../../../../src/protocol/compression/codecs.ts";
import { CompressionError } from "../../../../src/protocol/compression/compression-error.ts";
import { lz4Compress } from "../../../../src/protocol/compression/lz4.ts";
import { snappyCompress, snappyDecompress } from "../../../../src/protocol/compression/snappy.ts";
import { zstdCompress } from "../../../../src/protocol/compression/zstd-encode.ts";
import { encodeRecordBatch } from "../../../../src/protocol/record-batch.ts";
import { codeLengths } from "../../../../src/protocol/compression/zstd-huffman.ts";

const MiB = 1024 * 1024;
const bound = 8 * MiB;
const codecs = compressionCodecs.filter((codec) => codec !== "none");
const text = new TextEncoder().encode(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i, user: `user-${i % 97}`, ok: i % 3 === 0 }))));
/** Bytes with repeats at every distance and length: the matchers' hard cases. */
const data = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 300 })), { maxLength: 30 }).map((runs) => Uint8Array.from(runs.flatMap(([chunk, times]) => Array.from({ length: times }, () => [...chunk]).flat()))),
);
const same = (a: Uint8Array, b: Uint8Array): void => {
  expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
};

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CompressionError);
    return (error as CompressionError).failure;
  }
  throw new Error("no error");
}

describe("checksums", () => {
  it("xxHash32 and CRC-32 match the reference values", () => {
    const encoder = new TextEncoder();
    expect(xxhash32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(xxhash32(encoder.encode("Nobody inspects the spammish repetition"))).toBe(0xe2293b2f);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => crc32(bytes) === zlib.crc32(bytes)));
  });
});

describe("every codec round-trips", () => {
  it.each(codecs)("%s: random and repetitive bytes", (codec) => {
    fc.assert(fc.property(data, (bytes) => {
      same(decompressBytes(codecBits(codec), compressBytes(codec, bytes), bound), bytes);
    }), { numRuns: 150 });
  });

  it.each(codecs)("%s: 3 MiB of text across blocks and fragments, smaller than it came", (codec) => {
    const big = new Uint8Array(3 * MiB);
    for (let at = 0; at < big.length; at += text.length) big.set(text.subarray(0, Math.min(text.length, big.length - at)), at);
    const compressed = compressBytes(codec, big);
    expect(compressed.length).toBeLessThan(big.length / 3);
    same(decompressBytes(codecBits(codec), compressed, bound), big);
  });
});

describe("other implementations read ours and we read theirs", () => {
  it("gzip: Node's zlib", () => {
    fc.assert(fc.property(data, (bytes) => {
      same(zlib.gunzipSync(compressBytes("gzip", bytes)), bytes);
      same(decompressBytes(1, zlib.gzipSync(bytes), bound), bytes);
    }), { numRuns: 100 });
  });

  it("zstd: libzstd (Node's zlib), at its default level and ours", () => {
    fc.assert(fc.property(data, (bytes) => {
      same(zlib.zstdDecompressSync(zstdCompress(bytes)), bytes);
      same(decompressBytes(4, zlib.zstdCompressSync(bytes), bound), bytes);
    }), { numRuns: 100 });
    // A streamed frame: no content size, a window descriptor, several blocks, a checksum.
    const streamed = zlib.zstdCompressSync(Buffer.concat(Array.from({ length: 40 }, () => text)), { params: { [zlib.constants.ZSTD_c_checksumFlag]: 1, [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } });
    same(decompressBytes(4, streamed, bound), Buffer.concat(Array.from({ length: 40 }, () => text)));
  });

  it("zstd's Huffman-coded literals: libzstd and fzstd read them at every size, alphabet and skew", () => {
    /** Bytes from a skewed alphabet of 2..256 symbols: up to 128 (direct weights or FSE-compressed ones) and past it (FSE only). */
    const textLike = fc
      .tuple(fc.integer({ min: 2, max: 256 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 70_000 }), fc.integer(), fc.integer({ min: 129, max: 256 }))
      .map(([alphabet, first, length, seed, modulus]) => {
        let state = seed >>> 0;
        const out = new Uint8Array(length);
        for (let i = 0; i < length; i++) {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
          const r = (state >>> 8) / 2 ** 24;
          out[i] = (first + Math.floor(alphabet * r * r)) % modulus; // r² skews towards the first symbols
        }
        return out;
      });
    fc.assert(fc.property(textLike, (bytes) => {
      const ours = zstdCompress(bytes);
      same(zlib.zstdDecompressSync(ours), bytes);
      same(decompressBytes(4, ours, bound), bytes); // fzstd
    }), { numRuns: 80 });
    // Fibonacci counts over 30 symbols make a Huffman tree 29 deep: the code is limited to 11 bits, and stays complete.
    const counts = new Uint32Array(256);
    const symbols = Array.from({ length: 30 }, (_, i) => 40 + i);
    for (let i = 0, a = 1, b = 1; i < 30; i++, [a, b] = [b, a + b]) counts[40 + i] = a;
    const lengths = codeLengths(counts, symbols);
    expect(Math.max(...lengths)).toBe(11);
    expect(symbols.reduce((sum, symbol) => sum + 2 ** -lengths[symbol]!, 0)).toBe(1);
    const deep = Uint8Array.from(symbols.flatMap((symbol) => Array.from({ length: Math.min(counts[symbol]!, 4000) }, () => symbol)));
    for (let i = deep.length - 1, state = 7; i > 0; i--) { // shuffled, so the literals keep the skew
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      const j = state % (i + 1);
      [deep[i], deep[j]] = [deep[j]!, deep[i]!];
    }
    same(zlib.zstdDecompressSync(zstdCompress(deep)), deep);
    same(decompressBytes(4, zstdCompress(deep), bound), deep);
    // JSON's literals are Huffman-coded: the first block's literals section is of type 2.
    const frame = zstdCompress(text);
    expect(frame[9]! & 0x06).toBe(4); // block type 2, compressed
    expect(frame[12]! & 0x03).toBe(2);
    // A records section's varints pass 128: its literals' weights are FSE-compressed, and Huffman-coded still.
    const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const section = encodeRecordBatch(Array.from({ length: 500 }, (_, i) => ({ key: null, value: new TextEncoder().encode(Array.from({ length: 200 }, (_, j) => letters[(i * 7919 + j * j * 31) % 52]).join("")), headers: [], timestamp: 1 }))).subarray(61);
    const records = zstdCompress(section);
    expect(records[12]! & 0x03).toBe(2);
    const sizeFormat = (records[12]! >> 2) & 3;
    expect(records[12 + [3, 3, 4, 5][sizeFormat]!]!).toBeLessThan(128); // the tree description's header byte: FSE-compressed weights
    same(zlib.zstdDecompressSync(records), section);
    same(decompressBytes(4, records, bound), section);
  });

  it("zstd's repeat offsets: rows of one shape reuse the last distances, which libzstd and fzstd follow", () => {
    const rows = new TextEncoder().encode(Array.from({ length: 3000 }, (_, i) => `{"n":${(i * 7919) % 100000},"event":"page_view","path":"/p/${(i * 31) % 97}","ms":${(i * 13) % 500}}\n`).join(""));
    const frame = zstdCompress(rows);
    same(zlib.zstdDecompressSync(frame), rows);
    same(decompressBytes(4, frame, bound), rows);
    // Every offset a new one (offset + 3) came to 4.7 ×; repeat offsets (1–3) cost a few bits instead of ~10.
    expect(rows.length / frame.length).toBeGreaterThan(5.2);
    // A raw block between compressed ones (lines of 50 bytes, random bytes, lines of 64 bytes): its
    // sequences are dropped, and so are their changes to the history.
    const block = 128 * 1024;
    const mixed = new Uint8Array(3 * block);
    for (let i = 0; i < block; i++) mixed[i] = i % 50 === 49 ? 10 : 97 + ((i % 50) % 26);
    for (let i = block, state = 3; i < 2 * block; i++) mixed[i] = (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) >>> 24;
    mixed.copyWithin(block + 74, block + 10, block + 14); // 4 bytes 64 back: a match that does not pay for a compressed block
    for (let i = 2 * block; i < 3 * block; i++) mixed[i] = i % 64 === 63 ? 10 : 65 + ((i % 64) % 26);
    same(zlib.zstdDecompressSync(zstdCompress(mixed)), mixed);
    same(decompressBytes(4, zstdCompress(mixed), bound), mixed);
  });

  it("zstd's match search: a click stream's fields are found a few records back, not only in the last record", () => {
    // bench/compression.ts's JSON events as a records section: each field repeats in some recent record, rarely the last one whole.
    const paths = ["/", "/cart", "/checkout", "/products/shoes", "/products/hats", "/search"];
    const section = encodeRecordBatch(Array.from({ length: 4000 }, (_, i) => {
      const userId = `user-${(i * 7919) % 1000}`;
      const value = JSON.stringify({ userId, event: i % 5 === 0 ? "add_to_cart" : "page_view", path: paths[i % paths.length], ts: 1_700_000_000_000 + i * 37, ua: "Mozilla/5.0 (X11; Linux x86_64)", ms: 40 + ((i * 31) % 300) });
      return { key: new TextEncoder().encode(userId), value: new TextEncoder().encode(value), headers: [], timestamp: 1_700_000_000_000 + i };
    })).subarray(61);
    const frame = zstdCompress(section);
    same(zlib.zstdDecompressSync(frame), section);
    same(decompressBytes(4, frame, bound), section);
    // The last record's match alone came to 6.5 × (libzstd: 12.4 ×); the longest of a few candidates within 64 KiB, 8.4 ×.
    expect(section.length / frame.length).toBeGreaterThan(8);
  });

  it("lz4 and snappy: @platformatic/kafka's (WebAssembly)", () => {
    fc.assert(fc.property(data.filter((bytes) => bytes.length > 0), (bytes) => {
      same(theirLz4Decompress(Buffer.from(lz4Compress(bytes))), bytes);
      same(decompressBytes(3, theirLz4Compress(Buffer.from(bytes)), bound), bytes);
      same(theirSnappyDecompress(Buffer.from(snappyCompress(bytes))), bytes);
      same(decompressBytes(2, theirSnappyCompress(Buffer.from(bytes)), bound), bytes);
    }), { numRuns: 100 });
  });

  it("snappy: the xerial framing the Java client writes (magic, versions, length-prefixed raw blocks)", () => {
    const chunks = [text.subarray(0, 30_000), text.subarray(30_000)];
    const header = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1];
    const framed = Buffer.concat([Buffer.from(header), ...chunks.flatMap((chunk) => {
      const block = snappyCompress(chunk);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(block.length);
      return [length, Buffer.from(block)];
    })]);
    same(snappyDecompress(framed, bound), text);
  });

  it("lz4: our frames are what Kafka's Java client reads — independent blocks, a content checksum, a valid header checksum", () => {
    const frame = lz4Compress(text);
    expect([...frame.subarray(0, 4)]).toEqual([0x04, 0x22, 0x4d, 0x18]);
    expect(frame[4]! & 0x20).toBe(0x20); // independent blocks
    expect(frame[4]! & 0x04).toBe(0x04); // content checksum
    expect(frame[4]! & 0x10).toBe(0); // no block checksums
    expect(frame[6]).toBe((xxhash32(frame, 4, 6) >>> 8) & 0xff);
    const view = new DataView(frame.buffer, frame.byteOffset);
    expect(view.getUint32(frame.length - 4, true)).toBe(xxhash32(text));
  });
});

describe("malformed input is an error value, never a crash or a hang", () => {
  it.each(codecs)("%s: every truncation and many single-byte corruptions", (codec) => {
    const compressed = compressBytes(codec, text);
    for (let cut = 0; cut < compressed.length; cut += Math.max(1, Math.floor(compressed.length / 200))) {
      expect(["corrupt", "too-large"]).toContain(failure(() => decompressBytes(codecBits(codec), compressed.subarray(0, cut), bound)));
    }
    fc.assert(fc.property(fc.nat(compressed.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
      const damaged = compressed.slice();
      damaged[at]! ^= flip;
      try {
        const out = decompressBytes(codecBits(codec), damaged, bound);
        // Some header bytes change nothing (gzip's mtime and OS, reserved bits); the checksums of
        // gzip and lz4 catch any change to the records. snappy and zstd (no checksum written)
        // may return changed bytes, as Kafka's brokers would.
        if (codec === "gzip" || codec === "lz4") return Buffer.from(out).equals(Buffer.from(text));
        return out.length <= bound;
      } catch (error) {
        return error instanceof CompressionError;
      }
    }), { numRuns: 300 });
  });

  it.each(codecs)("%s: a bomb (64 MiB of zeros) stops at the bound as too-large", (codec) => {
    const zeros = new Uint8Array(64 * MiB);
    const bomb = codec === "gzip" ? zlib.gzipSync(zeros) : codec === "zstd" ? zlib.zstdCompressSync(zeros) : compressBytes(codec, zeros);
    expect(bomb.length).toBeLessThan(4 * MiB);
    expect(failure(() => decompressBytes(codecBits(codec), bomb, bound))).toBe("too-large");
    expect(decompressBytes(codecBits(codec), compressBytes(codec, zeros.subarray(0, MiB)), bound)).toHaveLength(MiB);
  });

  it("bombs that lie about their size: a gzip trailer, a zstd frame without a content size, a snappy preamble", () => {
    const gzipped = zlib.gzipSync(new Uint8Array(20 * MiB));
    gzipped.writeUInt32LE(1000, gzipped.length - 4); // the trailer claims 1000 bytes: inflated into 1000, the rest is refused
    expect(failure(() => decompressBytes(1, gzipped, bound))).toBe("corrupt");
    const streamed = zlib.zstdCompressSync(new Uint8Array(20 * MiB), { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } });
    expect(failure(() => decompressBytes(4, streamed, bound))).toBe("too-large");
    expect(failure(() => snappyDecompress(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x08, 0), bound))).toBe("too-large");
  });

  it("codec bits 5, 6 and 7 name no codec", () => {
    for (const bits of [5, 6, 7]) expect(failure(() => decompressBytes(bits, text, bound))).toBe("unknown-codec");
  });
});
