/**
 * Lines of a byte stream, split at "\n" (0x0A) and nowhere else: a "\r" or invalid UTF-8 stays
 * in the record as it was in the file, so what is produced is the input byte for byte. The
 * last line needs no newline; an input that ends with one has no empty line after it.
 */
import type { Message } from "../client/index.ts";
import { recordBytesMax } from "../limits.ts";
import { formatCount } from "./table.ts";

/**
 * A line longer than this is refused before it is read whole: past max.message.bytes (at most
 * recordBytesMax, 1 MiB) it could never be produced, so memory stays bounded on any input.
 */
export const lineBytesMax = 2 * 1024 * 1024;

/** A line that cannot be produced: the run stops before it, with its number (1-based). */
export class InputLineError extends Error {
  override readonly name = "InputLineError";
  readonly lineNumber: number;
  constructor(lineNumber: number, message: string) {
    super(message);
    this.lineNumber = lineNumber;
  }
}

const newline = 0x0a;

/**
 * Yields the complete lines of each chunk together (one array per chunk), each a copy. A line
 * past lineBytesMax is an InputLineError, thrown after the lines before it were yielded.
 */
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
    lineNumber += lines.length;
    if (lines.length > 0) yield lines;
    if (carry.length > lineBytesMax) {
      throw new InputLineError(lineNumber + 1, `line ${lineNumber + 1} is longer than ${lineBytesMax / 1024 / 1024} MiB, more than max.message.bytes allows (at most ${formatCount(recordBytesMax)} bytes)`);
    }
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

export interface LineRules {
  /** Key and value are split at its first occurrence; absent: the whole line is the value. */
  separator?: Uint8Array;
  /** As the user typed it, for messages. */
  separatorText?: string;
  /** Every record goes there; absent: the producer's partitioner chooses. */
  partition?: number;
  /** The topic's max.message.bytes: key plus value, as the server counts a record. */
  recordBytesMax: number;
}

/**
 * The records of `lines` (the first is line `firstLineNumber`), up to the first line that
 * cannot be one; that line's problem comes with the records before it, which are still to be
 * produced. `bytes`: the input bytes of those lines.
 */
export function linesToMessages(lines: Uint8Array[], firstLineNumber: number, rules: LineRules): { messages: Message[]; bytes: number; problem?: InputLineError } {
  const messages: Message[] = [];
  let bytes = 0;
  for (const [index, line] of lines.entries()) {
    const lineNumber = firstLineNumber + index;
    let record: { key?: Uint8Array; value: Uint8Array } = { value: line };
    if (rules.separator !== undefined) {
      const split = splitKey(line, rules.separator);
      if (split === undefined) return { messages, bytes, problem: new InputLineError(lineNumber, `line ${lineNumber} has no key separator ${JSON.stringify(rules.separatorText)}`) };
      record = split;
    }
    const recordBytes = (record.key?.length ?? 0) + record.value.length;
    if (recordBytes > rules.recordBytesMax) {
      const message = `line ${lineNumber} is a record of ${formatCount(recordBytes)} bytes, more than the topic's max.message.bytes (${formatCount(rules.recordBytesMax)})`;
      return { messages, bytes, problem: new InputLineError(lineNumber, message) };
    }
    messages.push({ ...record, partition: rules.partition });
    bytes += line.length;
  }
  return { messages, bytes };
}
