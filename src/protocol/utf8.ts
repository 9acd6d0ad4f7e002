/**
 * UTF-8 helpers of the record-batch codec, tuned for its hot path: exact encoded lengths
 * without encoding, a short-ASCII fast path, and interned header keys on decode.
 */
const utf8Encoder = new TextEncoder();
/** ignoreBOM keeps a leading U+FEFF in a header key instead of silently dropping it. */
const utf8Decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Only code units below 0x80: then UTF-8 bytes and code units are one to one. */
const asciiOnly = /^[\x00-\x7f]*$/;
/** Past this many units, the regular expression's native scan beats the loop below (≈4× at 200). */
const asciiScanUnitsMin = 32;

/** UTF-8 length of `text` as TextEncoder writes it (a lone surrogate becomes U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  const units = text.length;
  if (units >= asciiScanUnitsMin && asciiOnly.test(text)) return units;
  let length = units;
  for (let i = 0; i < units; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      length += 1;
    } else if (unit < 0xdc00 && unit >= 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // a surrogate pair: two units, four bytes
      i++;
    } else {
      length += 2;
    }
  }
  return length;
}

export function writeUtf8(bytes: Uint8Array, at: number, text: string, byteLength: number): void {
  if (byteLength === text.length && byteLength <= 64) {
    // Short ASCII (the usual header key): a loop beats encodeInto's call and view costs.
    for (let i = 0; i < byteLength; i++) bytes[at + i] = text.charCodeAt(i);
  } else {
    utf8Encoder.encodeInto(text, bytes.subarray(at, at + byteLength));
  }
}

/**
 * Header keys repeat from record to record ("content-type", "trace-id"), so short ASCII keys
 * are interned in a small direct-mapped cache: a hit compares the bytes with the cached string
 * and allocates nothing, which halves the cost of a header key on decode. Only ASCII strings
 * enter it, so a string whose char codes equal the bytes is exactly their UTF-8 decoding.
 */
const headerKeyCache: string[] = new Array<string>(256).fill("");
const headerKeyCachedBytesMax = 32;

export function readUtf8(bytes: Uint8Array, start: number, end: number): string {
  const length = end - start;
  if (length > headerKeyCachedBytesMax) return utf8Decoder.decode(bytes.subarray(start, end));
  let hash = length;
  for (let i = start; i < end; i++) hash = (hash * 31 + bytes[i]!) | 0;
  const slot = hash & 255;
  const cached = headerKeyCache[slot]!;
  if (cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === bytes[start + i]) i++;
    if (i === length) return cached;
  }
  let text = "";
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) return utf8Decoder.decode(bytes.subarray(start, end));
    text += String.fromCharCode(byte);
  }
  headerKeyCache[slot] = text;
  return text;
}
