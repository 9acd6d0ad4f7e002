/**
 * Server-Sent Events framing (the HTML standard's "event stream interpretation"), small and
 * incremental: feed it the body's bytes as they come, take whole events out.
 *
 * - The stream is UTF-8 (a decoder in streaming mode, so a character split across chunks stays
 *   whole); one leading byte order mark is dropped.
 * - Lines end with CRLF, LF or CR — a CR at the end of a chunk may be half of a CRLF, so the
 *   next chunk's first LF is skipped.
 * - `field: value` (one space after the colon dropped), `field` alone (empty value), `: …` a
 *   comment (a keep-alive), ignored. Fields: `event` (the type), `data` (lines joined with
 *   LF), `id` (kept across events until another one comes; ignored when it holds NUL),
 *   `retry` (digits only: the reconnection time the server suggests). Others are ignored.
 * - A blank line dispatches: nothing when no `data` came (the type is reset), else
 *   `{ type: event || "message", data, lastEventId }`.
 */

/**
 * The longest line kept while waiting for its end: an event's data is one line of JSON, and
 * the largest Tributary sends is one fetch answer (8 MiB of records at most, in base64).
 * Past it the stream is broken, not slow: the parser throws rather than grow without bound.
 */
export const sseLineCharsMax = 16 * 1024 * 1024;

export interface ServerSentEvent {
  type: string;
  data: string;
  /** The last `id` seen on the stream so far (this event's or an earlier one's), "" when none. */
  lastEventId: string;
}

export class SseParser {
  readonly #decoder = new TextDecoder("utf-8");
  #pending = "";
  #skipLineFeed = false;
  #started = false;
  #type = "";
  #data: string[] = [];
  #lastEventId = "";
  /** The `retry` the server last sent (ms), if any. */
  retryMs: number | undefined;

  /** The events completed by this chunk, in order. */
  push(chunk: Uint8Array): ServerSentEvent[] {
    let text = this.#decoder.decode(chunk, { stream: true });
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.#lines(text);
  }

  /** The end of the body: a last event without its blank line is dropped, as the standard says. */
  end(): ServerSentEvent[] {
    this.#lines(this.#decoder.decode());
    this.#pending = "";
    this.#data = [];
    this.#type = "";
    return [];
  }

  #lines(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let at = 0;
    if (this.#skipLineFeed && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) at = 1;
      this.#skipLineFeed = false;
    }
    while (at < text.length) {
      const lf = text.indexOf("\n", at);
      const cr = text.indexOf("\r", at);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.#pending += text.slice(at);
        if (this.#pending.length > sseLineCharsMax) throw new RangeError(`an event-stream line longer than ${sseLineCharsMax} characters`);
        break;
      }
      const line = this.#pending + text.slice(at, end);
      this.#pending = "";
      at = end + 1;
      if (text.charCodeAt(end) === 0x0d) {
        if (at < text.length) {
          if (text.charCodeAt(at) === 0x0a) at++;
        } else {
          this.#skipLineFeed = true;
        }
      }
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 0x3a) return undefined; // ":" a comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === "event") this.#type = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id" && !value.includes("\0")) this.#lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    const type = this.#type;
    this.#type = "";
    if (this.#data.length === 0) return undefined;
    const data = this.#data.join("\n");
    this.#data = [];
    return { type: type === "" ? "message" : type, data, lastEventId: this.#lastEventId };
  }
}
