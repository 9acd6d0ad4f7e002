/**
 * The records every scenario sends, generated once before anything is measured: 16-byte
 * keys and 200-byte values of printable ASCII (one byte per character in UTF-8 and in JSON,
 * so "bytes" means the same on the wire and in the log). Deterministic, so two runs send
 * the same bytes.
 */
export const keyBytes = 16;
export const valueBytes = 200;
/** Payload bytes of one record: what MB/s counts (key + value, not the JSON around them). */
export const recordPayloadBytes = keyBytes + valueBytes;

export interface BenchRecord {
  key: string;
  value: string;
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A small deterministic generator (mulberry32): the values need variety, not randomness. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A key of exactly 16 bytes that carries a number, so a consumer can tell records apart. */
export function keyFor(prefix: string, index: number): string {
  const key = prefix + String(index).padStart(keyBytes - prefix.length, "0");
  if (key.length !== keyBytes) throw new Error(`key ${key} is not ${keyBytes} bytes`);
  return key;
}

export function numberInKey(prefix: string, key: string): number {
  return Number(key.slice(prefix.length));
}

/** `count` records with distinct keys (so a keyed topic spreads them over its partitions). */
export function makeRecords(count: number, seed = 7): BenchRecord[] {
  const random = generator(seed);
  const records: BenchRecord[] = [];
  for (let index = 0; index < count; index++) {
    let value = "";
    for (let at = 0; at < valueBytes; at++) value += alphabet[Math.floor(random() * alphabet.length)];
    records.push({ key: keyFor("k", index), value });
  }
  return records;
}
