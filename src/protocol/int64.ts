/**
 * Kafka's int64 fields (offsets, timestamps, producer ids) as JS numbers: two big-endian
 * 32-bit words, exact for every safe integer, negative ones included. Callers refuse values
 * beyond ±(2^53 − 1) with their own format's error.
 */
export function writeInt64(view: DataView, at: number, value: number): void {
  const high = Math.floor(value / 0x100000000);
  view.setInt32(at, high);
  view.setUint32(at + 4, value - high * 0x100000000);
}

/** The int64 at `at`; not a safe integer when the field holds more than a JS number can. */
export function readInt64(view: DataView, at: number): number {
  return view.getInt32(at) * 0x100000000 + view.getUint32(at + 4);
}
