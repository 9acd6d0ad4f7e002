/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of Kafka's record batch
 * v2 (and of iSCSI, RFC 3720). Pure TypeScript so it runs in Workers, Node and browsers.
 *
 * Slicing-by-8: eight 256-entry tables let the loop fold eight input bytes per step instead
 * of one. Table k maps a byte to the CRC of that byte followed by k zero bytes, so the eight
 * lookups of one step can be XORed together independently.
 */

const castagnoliReflected = 0x82f63b78;

/** Table k occupies entries [256k, 256k + 256). Int32 entries: the loop stays in small ints. */
const tables = buildTables();

function buildTables(): Int32Array {
  const table = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 1 ? (crc >>> 1) ^ castagnoliReflected : crc >>> 1;
    }
    table[n] = crc;
  }
  for (let n = 0; n < 256; n++) {
    let crc = table[n]!;
    for (let k = 1; k < 8; k++) {
      crc = table[crc & 0xff]! ^ (crc >>> 8);
      table[k * 256 + n] = crc;
    }
  }
  return table;
}

/**
 * The CRC-32C of `bytes[start..end)`, as an unsigned 32-bit number.
 * Throws RangeError when the range is not inside `bytes` (a typed array read out of range
 * would silently yield `undefined` and a wrong checksum).
 */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const inside = Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end;
  if (!inside || end > bytes.length) {
    throw new RangeError(`crc32c: range [${start}, ${end}) is outside 0..${bytes.length}`);
  }
  const t = tables;
  let crc = ~0;
  let i = start;
  const fastEnd = end - 8;
  while (i <= fastEnd) {
    crc ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    crc =
      t[1792 + (crc & 0xff)]! ^
      t[1536 + ((crc >>> 8) & 0xff)]! ^
      t[1280 + ((crc >>> 16) & 0xff)]! ^
      t[1024 + (crc >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < end) {
    crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
    i++;
  }
  return ~crc >>> 0;
}
