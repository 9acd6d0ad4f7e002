/**
 * Reading zstd (Kafka's codec 4, RFC 8878 frames). Two decoders behind one entry: fzstd (pure
 * JavaScript, the default: Node, browsers, the client) and, in the Worker, libzstd as
 * WebAssembly (zstd-wasm.ts; src/zstd-wasm-decoder.ts installs it with useZstdDecoder), four
 * to six times faster on Huffman-coded literals (docs/api.md, Compression).
 *
 * Either way the frames are walked first, headers only, and refused when their window,
 * declared size or the most their blocks can produce is past the bound: a raw or RLE block
 * produces its stated size, a compressed one at most the 128 KiB a block may hold. fzstd
 * allocates a frame's window (or its declared size) before it decodes; libzstd is handed an
 * output of exactly the walked size and stops rather than write past it. Frames with a
 * dictionary are refused (no client sends them to Kafka).
 */
import { decompress } from "fzstd";
import { corrupt, tooLarge } from "./compression-error.ts";

/** Decodes whole zstd frames (skippable ones skipped) into at most `capacity` bytes, or throws CompressionError. */
export interface ZstdFrameDecoder {
  /** Which implementation runs (the bench and a workers test read it). */
  readonly name: string;
  decode(src: Uint8Array, capacity: number): Uint8Array;
}

const codec = "zstd";
const frameMagic = 0xfd2fb528;
const blockBytesMax = 128 * 1024;

function read32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function readLittleEndian(bytes: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = width - 1; i >= 0; i--) value = value * 256 + bytes[at + i]!;
  return value;
}

/** Walks one frame at `at` (headers and block headers only); answers its end and the most it can decode to. */
function walkFrame(src: Uint8Array, at: number, bytesMax: number): { end: number; outputMax: number } {
  if (src.length - at < 6) corrupt(codec, "truncated frame header");
  const descriptor = src[at + 4]!;
  const contentSizeFlag = descriptor >>> 6;
  const singleSegment = (descriptor >>> 5) & 1;
  const checksum = (descriptor >>> 2) & 1;
  if (descriptor & 0x08) corrupt(codec, "reserved frame header bit set");
  if (descriptor & 0x03) corrupt(codec, "frames with a dictionary are not supported");
  let position = at + 5;
  let window = 0;
  if (!singleSegment) {
    const windowDescriptor = src[position++]!;
    const base = 2 ** (10 + (windowDescriptor >>> 3));
    window = base + (base / 8) * (windowDescriptor & 7);
  }
  const sizeWidth = contentSizeFlag === 0 ? singleSegment : 1 << contentSizeFlag;
  if (src.length - position < sizeWidth) corrupt(codec, "truncated frame header");
  let contentSize = -1;
  if (sizeWidth > 0) {
    contentSize = readLittleEndian(src, position, sizeWidth) + (sizeWidth === 2 ? 256 : 0);
    position += sizeWidth;
    if (contentSize > bytesMax) tooLarge(codec, bytesMax);
    if (singleSegment) window = contentSize;
  }
  if (window > bytesMax) tooLarge(codec, bytesMax);
  const blockMax = Math.min(window, blockBytesMax);
  let outputMax = 0;
  for (let last = 0; !last; ) {
    if (src.length - position < 3) corrupt(codec, "truncated block header");
    const header = src[position]! | (src[position + 1]! << 8) | (src[position + 2]! << 16);
    position += 3;
    last = header & 1;
    const type = (header >>> 1) & 3;
    const size = header >>> 3;
    if (type === 3) corrupt(codec, "reserved block type");
    if (size > blockMax) corrupt(codec, `block of ${size} bytes in a ${blockMax}-byte block limit`);
    const stored = type === 1 ? 1 : size;
    if (src.length - position < stored) corrupt(codec, "truncated block");
    position += stored;
    outputMax += type === 2 ? blockMax : size;
    if (outputMax > bytesMax && contentSize < 0) tooLarge(codec, bytesMax);
  }
  if (checksum) position += 4;
  if (position > src.length) corrupt(codec, "truncated checksum");
  return { end: position, outputMax: contentSize >= 0 ? contentSize : outputMax };
}

const fzstdDecoder: ZstdFrameDecoder = {
  name: "fzstd",
  decode(src) {
    try {
      return decompress(src);
    } catch (error) {
      corrupt(codec, error instanceof Error ? error.message : String(error));
    }
  },
};

let frameDecoder = fzstdDecoder;

/** Decodes zstd with `decoder` from now on, in this isolate or process (the Worker's entry installs libzstd's); answers the one it replaces. */
export function useZstdDecoder(decoder: ZstdFrameDecoder): ZstdFrameDecoder {
  const replaced = frameDecoder;
  frameDecoder = decoder;
  return replaced;
}

/** The zstd decoder in use: "fzstd" or "libzstd (WebAssembly)". */
export function zstdDecoderName(): string {
  return frameDecoder.name;
}

/** Decodes zstd frames (skippable frames skipped) into at most `bytesMax` bytes. */
export function zstdDecompress(src: Uint8Array, bytesMax: number): Uint8Array {
  let total = 0;
  for (let at = 0; at < src.length; ) {
    if (src.length - at < 8) corrupt(codec, "truncated frame");
    const magic = read32(src, at);
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      at += 8 + read32(src, at + 4);
      continue;
    }
    if (magic !== frameMagic) corrupt(codec, "not a zstd frame");
    const frame = walkFrame(src, at, bytesMax);
    total += frame.outputMax;
    if (total > bytesMax) tooLarge(codec, bytesMax);
    at = frame.end;
  }
  if (src.length === 0) corrupt(codec, "no frame");
  return frameDecoder.decode(src, total);
}
