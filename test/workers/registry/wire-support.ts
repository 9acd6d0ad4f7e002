/**
 * Keys and values in Confluent's wire format for the workers tests of full validation and
 * decode=schema: the 5-byte header, Avro's binary encoding of longs and strings, JSON produce.
 */
import { api } from "../support/http.ts";

const utf8 = new TextEncoder();

/** A payload in Confluent's wire format: magic byte 0, the schema id (int32 big-endian), the data. */
export function wire(id: number, data: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(5 + data.length);
  new DataView(bytes.buffer).setInt32(1, id);
  bytes.set(data, 5);
  return bytes;
}

/** Avro's zigzag varint of a long (a safe integer). */
export function avroLong(value: number): number[] {
  let raw = value >= 0 ? value * 2 : -value * 2 - 1;
  const out: number[] = [];
  do {
    const byte = raw % 128;
    raw = Math.floor(raw / 128);
    out.push(raw > 0 ? byte | 0x80 : byte);
  } while (raw > 0);
  return out;
}

export function avroString(text: string): number[] {
  const bytes = utf8.encode(text);
  return [...avroLong(bytes.length), ...bytes];
}

export const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** JSON produce of base64 values (and keys), acks all. */
export function produceJson(topic: string, records: { key?: Uint8Array | null; value: Uint8Array | null }[]) {
  const body = records.map(({ key, value }) => ({ key: key ? base64(key) : key, value: value && base64(value) }));
  return api("POST", `/v1/topics/${topic}/records`, { records: body, encoding: "base64", acks: "all" });
}
