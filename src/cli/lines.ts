/**
 * Lines of a byte stream, split at "\n" (0x0A) and nowhere else: a "\r" or invalid UTF-8 stays
 * in the record as it was in the file, so what is produced is the input byte for byte. The
 * last line needs no newline; an input that ends with one has no empty line after it.
 */
/** A line longer than this is refused: past max.message.bytes (at most 1 MiB) it could never be produced. */
export const lineBytesMax = 2 * 1024 * 1024;

const newline = 0x0a;

/** Yields the complete lines of each chunk together (one array per chunk), each a copy. */
export async function* byteLines(stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<Uint8Array[]> {
  let carry: Uint8Array = new Uint8Array(0);
  let lineNumber = 0;
  for await (const input of stream) {
    const chunk = typeof input === "string" ? new TextEncoder().encode(input) : input;
    const lines: Uint8Array[] = [];
    let start = 0;
    let at = chunk.indexOf(newline);
    while (at !== -1) {
      const piece = chunk.subarray(start, at);
      // new Uint8Array(view) copies (a Buffer's slice() would not).
      lines.push(carry.length === 0 ? new Uint8Array(piece) : concat(carry, piece));
      carry = new Uint8Array(0);
      start = at + 1;
      at = chunk.indexOf(newline, start);
    }
    if (start < chunk.length) carry = concat(carry, chunk.subarray(start));
    if (carry.length > lineBytesMax) throw new Error(`line ${lineNumber + lines.length + 1} is longer than ${lineBytesMax} bytes`);
    lineNumber += lines.length;
    if (lines.length > 0) yield lines;
  }
  if (carry.length > 0) yield [carry];
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

/** Splits a line at the first `separator`: key before, value after; undefined when it has none. */
export function splitKey(line: Uint8Array, separator: Uint8Array): { key: Uint8Array; value: Uint8Array } | undefined {
  const at = indexOfBytes(line, separator);
  if (at === -1) return undefined;
  return { key: line.subarray(0, at), value: line.subarray(at + separator.length) };
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  if (needle.length === 0) return -1;
  let at = haystack.indexOf(needle[0]!);
  while (at !== -1 && at + needle.length <= haystack.length) {
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
    at = haystack.indexOf(needle[0]!, at + 1);
  }
  return -1;
}
