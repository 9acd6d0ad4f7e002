/**
 * The two checksums compressed formats carry inside a batch: gzip's CRC-32 (IEEE, reflected,
 * polynomial 0xEDB88320) over the uncompressed bytes, and xxHash32 (seed 0) for the LZ4 frame's
 * header and content checksums. Pure TypeScript: Workers, Node and browsers.
 */

/** Slicing-by-8 tables: table k (at k × 256) advances the CRC over a byte followed by k zero bytes. */
const crc32Tables = /*#__PURE__*/ (() => {
  const tables = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) {
      const previous = tables[(k - 1) * 256 + n]!;
      tables[k * 256 + n] = (previous >>> 8) ^ tables[previous & 0xff]!;
    }
  }
  return tables;
})();

/** CRC-32 of bytes[start, end), as gzip's trailer stores it (unsigned); eight bytes a step. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = crc32Tables;
  let crc = -1;
  let i = start;
  for (const stop = end - 8; i <= stop; i += 8) {
    crc ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    crc =
      t[1792 + (crc & 0xff)]! ^ t[1536 + ((crc >>> 8) & 0xff)]! ^ t[1280 + ((crc >>> 16) & 0xff)]! ^ t[1024 + (crc >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^ t[512 + bytes[i + 5]!]! ^ t[256 + bytes[i + 6]!]! ^ t[bytes[i + 7]!]!;
  }
  for (; i < end; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

const prime1 = 0x9e3779b1;
const prime2 = 0x85ebca77;
const prime3 = 0xc2b2ae3d;
const prime4 = 0x27d4eb2f;
const prime5 = 0x165667b1;

function read32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function round(acc: number, lane: number): number {
  acc = (acc + Math.imul(lane, prime2)) | 0;
  acc = (acc << 13) | (acc >>> 19);
  return Math.imul(acc, prime1);
}

/** xxHash32 of bytes[start, end) with seed 0 (the LZ4 frame format's checksum), unsigned. */
export function xxhash32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const length = end - start;
  let at = start;
  let hash: number;
  if (length >= 16) {
    let v1 = (prime1 + prime2) | 0;
    let v2 = prime2;
    let v3 = 0;
    let v4 = -prime1 | 0;
    const limit = end - 16;
    while (at <= limit) {
      v1 = round(v1, read32(bytes, at));
      v2 = round(v2, read32(bytes, at + 4));
      v3 = round(v3, read32(bytes, at + 8));
      v4 = round(v4, read32(bytes, at + 12));
      at += 16;
    }
    hash = ((v1 << 1) | (v1 >>> 31)) + ((v2 << 7) | (v2 >>> 25)) + ((v3 << 12) | (v3 >>> 20)) + ((v4 << 18) | (v4 >>> 14));
  } else {
    hash = prime5;
  }
  hash = (hash + length) | 0;
  while (at + 4 <= end) {
    hash = (hash + Math.imul(read32(bytes, at), prime3)) | 0;
    hash = Math.imul((hash << 17) | (hash >>> 15), prime4);
    at += 4;
  }
  while (at < end) {
    hash = (hash + Math.imul(bytes[at]!, prime5)) | 0;
    hash = Math.imul((hash << 11) | (hash >>> 21), prime1);
    at++;
  }
  hash ^= hash >>> 15;
  hash = Math.imul(hash, prime2);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, prime3);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
