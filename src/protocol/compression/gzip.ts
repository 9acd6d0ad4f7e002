/**
 * Gzip as Kafka's codec 1 carries it (RFC 1952: one member, deflate inside), through fflate:
 * pure JavaScript, synchronous, the same code in Workers, Node and browsers. Decoding streams
 * the input in slices so the output is counted as it grows: a bomb stops at the bound after
 * inflating at most one slice past it, in time as well as memory. The trailer's CRC-32 and
 * length are checked, which fflate leaves to its caller.
 */
import { Gunzip, gunzipSync, gzipSync } from "fflate";
import { crc32 } from "./checksums.ts";
import { CompressionError, corrupt, tooLarge } from "./compression-error.ts";

const codec = "gzip";
/**
 * Input inflated at a time: deflate inflates at most ~1032×, so a bomb costs at most ~66 MB
 * of inflating past the bound before it is refused; a batch up to this size inflates in one call.
 */
const sliceBytes = 64 * 1024;
/** Kafka's default gzip level (-1, which zlib takes as 6). */
const gzipLevel = 6;

export function gzipCompress(src: Uint8Array): Uint8Array {
  return gzipSync(src, { level: gzipLevel, mtime: 0 });
}

function readTrailer(src: Uint8Array): { crc: number; length: number } {
  const at = src.length - 8;
  const word = (i: number) => (src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24)) >>> 0;
  return { crc: word(at), length: word(at + 4) };
}

function inflateStreaming(src: Uint8Array, bytesMax: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let members = 0;
  const inflater = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > bytesMax) tooLarge(codec, bytesMax);
    chunks.push(chunk);
  });
  inflater.onmember = () => members++;
  for (let at = 0; at < src.length; at += sliceBytes) inflater.push(src.subarray(at, at + sliceBytes), at + sliceBytes >= src.length);
  // Several members (a concatenation) would each carry their own trailer; Kafka's clients write one.
  if (members > 1) corrupt(codec, `${members} members; a batch holds one`);
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Decodes one gzip member into at most `bytesMax` bytes, checking its CRC-32 and length.
 * Input of at most one slice is inflated in one call into a buffer of the trailer's length
 * (a lying trailer truncates or short-fills it, which the checks after catch; the work is
 * bounded by the slice as in the streamed case); larger input streams slice by slice.
 */
export function gzipDecompress(src: Uint8Array, bytesMax: number): Uint8Array {
  if (src.length < 18 || src[0] !== 0x1f || src[1] !== 0x8b || src[2] !== 8) corrupt(codec, "not a gzip member");
  const trailer = readTrailer(src);
  if (trailer.length > bytesMax) tooLarge(codec, bytesMax);
  let out: Uint8Array;
  try {
    out = src.length <= sliceBytes ? gunzipSync(src, { out: new Uint8Array(trailer.length) }) : inflateStreaming(src, bytesMax);
  } catch (error) {
    if (error instanceof CompressionError) throw error;
    corrupt(codec, error instanceof Error ? error.message : String(error));
  }
  if (out.length !== trailer.length) corrupt(codec, `${out.length} bytes inflated, the trailer says ${trailer.length}`);
  if (crc32(out) !== trailer.crc) corrupt(codec, "CRC-32 of the inflated bytes");
  return out;
}
