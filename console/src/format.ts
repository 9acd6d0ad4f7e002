/** Pure formatting for the console's tables: bytes, record payloads, local times. */

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "1 batch", "3 batches": a count with its noun, singular for one. */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

export function formatRate(perSecond: number): string {
  if (perSecond === 0) return "0";
  if (perSecond < 10) return perSecond.toFixed(2);
  return Math.round(perSecond).toLocaleString();
}

/** A timestamp (ms since the epoch) in the browser's local time, with milliseconds. */
export function formatLocalTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ");
}

/** The bytes as UTF-8 text, or null when they are not valid UTF-8. */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** text: UTF-8 / JSON; hex: bytes; schema: decoded by the registry (`decode=schema`), else as text. */
export type PayloadView = "text" | "hex" | "schema";

/**
 * A key or value for display: JSON pretty-printed, other UTF-8 text as it is, and hex when
 * asked for or when the bytes are not UTF-8. `null` is a real null (shown as such).
 */
export function renderPayload(base64: string | null, view: PayloadView): { text: string; kind: "null" | "json" | "text" | "hex" } {
  if (base64 === null) return { text: "null", kind: "null" };
  if (view === "schema") return renderPayload(base64, "text");
  const bytes = base64ToBytes(base64);
  const text = view === "hex" ? null : utf8OrNull(bytes);
  if (text === null) return { text: toHex(bytes), kind: "hex" };
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return { text: JSON.stringify(JSON.parse(trimmed), null, 2), kind: "json" };
    } catch {
      // not JSON: shown as text
    }
  }
  return { text, kind: "text" };
}

/** "name: value" lines (a form's headers field) → a headers object; a line without ":" is an error. */
export function parseHeaderLines(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { error: `header line ${index + 1} needs "name: value"` };
    Object.defineProperty(headers, line.slice(0, colon).trim(), { value: line.slice(colon + 1).trim(), enumerable: true, writable: true, configurable: true });
  }
  return { headers };
}

/** "name=value" lines (a form's configs field) → a configs object. */
export function parseConfigLines(text: string): { configs: Record<string, string> } | { error: string } {
  const configs: Record<string, string> = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const equals = line.indexOf("=");
    if (equals <= 0) return { error: `config line ${index + 1} needs "name=value"` };
    configs[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
  }
  return { configs };
}

/**
 * A registered schema as the Schemas page shows it: Avro and JSON schemas (JSON text, stored
 * without whitespace) indented two spaces, so a diff between versions is a diff of lines;
 * Protobuf's `.proto` text, or text that is not JSON, as it is.
 */
export function prettySchema(schema: string, schemaType: string | undefined): string {
  if (schemaType === "PROTOBUF") return schema;
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}

/**
 * A key or value read with `decode=schema`: the JSON its schema decoded it to (with the id), or,
 * when it was not decoded, as `renderPayload` shows it with the reason beside it.
 */
export function renderDecoded(payload: unknown, schemaId: number | undefined, decodeError: string | undefined): { text: string; kind: "null" | "json" | "text" | "hex"; note?: string } {
  if (schemaId !== undefined) return { text: JSON.stringify(payload, null, 2), kind: "json", note: `schema ${schemaId}` };
  return { ...renderPayload(payload as string | null, "text"), ...(decodeError !== undefined ? { note: `not decoded: ${decodeError}` } : {}) };
}
