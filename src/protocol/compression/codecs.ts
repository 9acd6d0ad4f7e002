/**
 * Kafka's compression codecs by name and attribute bits (a batch's attributes, bits 0-2), and
 * the one dispatch from a codec to its encoder and bounded decoder. Every codec is pure
 * JavaScript so the same code runs in Workers (no native addon, no WebAssembly compiled at run
 * time), Node and browsers; docs/api.md, Compression, says why each was chosen. Two exceptions
 * for speed and ratio: where Node's zlib has zstd (Node ≥ 22.15), the client's zstd encoder is
 * libzstd's, reached through `process.getBuiltinModule` so no bundle ever imports node:zlib;
 * and the Worker decodes zstd with libzstd as WebAssembly, a module its entry imports and
 * installs (src/zstd-wasm-decoder.ts, zstd-decode.ts's useZstdDecoder).
 */
import { gzipCompress, gzipDecompress } from "./gzip.ts";
import { lz4Compress, lz4Decompress } from "./lz4.ts";
import { snappyCompress, snappyDecompress } from "./snappy.ts";
import { zstdDecompress } from "./zstd-decode.ts";
import { zstdCompress } from "./zstd-encode.ts";
import { CompressionError } from "./compression-error.ts";

/** The codecs by their attribute value: kafkajs's and the client's names. */
export const compressionCodecs = ["none", "gzip", "snappy", "lz4", "zstd"] as const;
export type CompressionCodec = (typeof compressionCodecs)[number];

/** A codec's attribute bits (0 none … 4 zstd). */
export function codecBits(codec: CompressionCodec): number {
  return compressionCodecs.indexOf(codec);
}

/** The codec named by attribute bits 0-2, or undefined for 5-7 (no codec). */
export function codecOfBits(bits: number): CompressionCodec | undefined {
  return compressionCodecs[bits];
}

export function isCompressionCodec(value: unknown): value is CompressionCodec {
  return typeof value === "string" && (compressionCodecs as readonly string[]).includes(value);
}

type ZstdSync = (bytes: Uint8Array) => Uint8Array;

/** Node's libzstd when the runtime has it (Node ≥ 22.15); undefined in Workers and browsers. */
const nodeZstd: ZstdSync | undefined = /*#__PURE__*/ (() => {
  const runtime = globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } };
  const zlib = runtime.process?.getBuiltinModule?.("node:zlib") as { zstdCompressSync?: (bytes: Uint8Array) => Uint8Array } | undefined;
  const compress = zlib?.zstdCompressSync;
  return compress ? (bytes) => new Uint8Array(compress(bytes)) : undefined;
})();

/** `bytes` compressed with `codec` (the records section of a batch). */
export function compressBytes(codec: CompressionCodec, bytes: Uint8Array, options: { preferNative?: boolean } = {}): Uint8Array {
  switch (codec) {
    case "none":
      return bytes;
    case "gzip":
      return gzipCompress(bytes);
    case "snappy":
      return snappyCompress(bytes);
    case "lz4":
      return lz4Compress(bytes);
    case "zstd":
      return options.preferNative && nodeZstd ? nodeZstd(bytes) : zstdCompress(bytes);
  }
}

/**
 * `bytes` decompressed by the codec of attribute bits `bits`, into at most `bytesMax` bytes.
 * Throws CompressionError: `unknown-codec` for bits 5-7, `corrupt`, or `too-large`.
 */
export function decompressBytes(bits: number, bytes: Uint8Array, bytesMax: number): Uint8Array {
  switch (bits) {
    case 0:
      if (bytes.length > bytesMax) throw new CompressionError("too-large", `the records take more than ${bytesMax} bytes`);
      return bytes;
    case 1:
      return gzipDecompress(bytes, bytesMax);
    case 2:
      return snappyDecompress(bytes, bytesMax);
    case 3:
      return lz4Decompress(bytes, bytesMax);
    case 4:
      return zstdDecompress(bytes, bytesMax);
    default:
      throw new CompressionError("unknown-codec", `compression codec ${bits} is none of Kafka's (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)`);
  }
}
