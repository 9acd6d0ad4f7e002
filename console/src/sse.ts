/**
 * Server-Sent Events over `fetch` (the API's streaming reads, docs/api.md): unlike
 * `EventSource`, fetch can send the session's `Authorization` header, so the token never goes
 * into a URL. `SseParser` is the pure part: text in, whole events out.
 */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  #buffer = "";
  #event = "";
  #data: string[] = [];
  #id: string | undefined;

  /** Feeds a chunk of the stream; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const events: SseEvent[] = [];
    let newline: number;
    while ((newline = this.#buffer.search(/\r\n|\n|\r/)) !== -1) {
      const line = this.#buffer.slice(0, newline);
      const width = this.#buffer.startsWith("\r\n", newline) ? 2 : 1;
      this.#buffer = this.#buffer.slice(newline + width);
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = "";
        return undefined;
      }
      const event = { event: this.#event || "message", data: this.#data.join("\n"), id: this.#id };
      this.#event = "";
      this.#data = [];
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id") this.#id = value;
    return undefined;
  }
}

/**
 * Opens a stream; `onOpen` runs once the server has answered (its starting position is then
 * fixed), then `onEvent` for each event until `signal` aborts or the server ends the stream.
 */
export async function readEventStream(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  handlers: { onOpen: () => Promise<void>; onEvent: (event: SseEvent) => void },
): Promise<void> {
  const response = await fetch(url, { headers: { ...headers, accept: "text/event-stream" }, signal });
  if (!response.ok || response.body === null) {
    const text = await response.text();
    throw new Error(`stream refused (${response.status}): ${text.slice(0, 200)}`);
  }
  await handlers.onOpen();
  const parser = new SseParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.push(value)) handlers.onEvent(event);
    }
  } finally {
    reader.releaseLock();
  }
}
