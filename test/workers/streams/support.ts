/**
 * Reading SSE streams in workers tests: the response body through a real SSE parser
 * (eventsource-parser), item by item — events and comment lines — as a browser sees them.
 */
import { createExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { expect } from "vitest";
import { createApp } from "../../../src/app.ts";
import { baseUrl } from "../support/http.ts";
import { securedEnv } from "../support/secured.ts";

export type SseItem = { kind: "event"; event: string; id: string | undefined; data: any } | { kind: "comment"; text: string };

export class SseReader {
  readonly response: Response;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #items: SseItem[] = [];
  readonly #parser = createParser({
    onEvent: (message: EventSourceMessage) => this.#items.push({ kind: "event", event: message.event ?? "message", id: message.id, data: JSON.parse(message.data) }),
    onComment: (text: string) => this.#items.push({ kind: "comment", text: text.trim() }),
    onError: (error) => {
      throw error;
    },
  });
  #ended = false;

  constructor(response: Response) {
    this.response = response;
    this.#reader = response.body!.getReader();
  }

  /** The next event or comment, or undefined once the stream has ended. */
  async next(): Promise<SseItem | undefined> {
    while (this.#items.length === 0 && !this.#ended) {
      const { done, value } = await this.#reader.read();
      if (done) this.#ended = true;
      else this.#parser.feed(this.#decoder.decode(value, { stream: true }));
    }
    return this.#items.shift();
  }

  /** The next event (comments skipped), or undefined once the stream has ended. */
  async nextEvent(): Promise<Extract<SseItem, { kind: "event" }> | undefined> {
    for (;;) {
      const item = await this.next();
      if (item === undefined || item.kind === "event") return item;
    }
  }

  /** The client goes away. */
  async close(): Promise<void> {
    this.#ended = true;
    await this.#reader.cancel();
  }
}

export interface StreamOptions {
  lastEventId?: string;
  /** With the admin token configured (the router app under securedEnv), this bearer token. */
  token?: string;
  secured?: boolean;
  headers?: Record<string, string>;
}

/** Opens a stream (`Accept: text/event-stream`); the response as it is, for status checks. */
export async function openStream(path: string, options: StreamOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.secured || options.token !== undefined) {
    return securedApp.request(`${baseUrl}${path}`, { headers }, securedEnv, createExecutionContext());
  }
  return exports.default.fetch(new Request(`${baseUrl}${path}`, { headers }));
}

const securedApp = createApp();

/** Opens a stream and asserts it started: 200 text/event-stream. */
export async function stream(path: string, options: StreamOptions = {}): Promise<SseReader> {
  const response = await openStream(path, options);
  if (response.status !== 200) expect(response.status, await response.text()).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return new SseReader(response);
}

/** Reads `records` events until `count` records have come; answers them and the last event's id. */
export async function readRecords(reader: SseReader, count: number): Promise<{ records: any[]; lastId: string | undefined }> {
  const records: any[] = [];
  let lastId: string | undefined;
  while (records.length < count) {
    const event = await reader.nextEvent();
    if (event === undefined) throw new Error(`the stream ended after ${records.length} of ${count} records`);
    expect(event.event, JSON.stringify(event.data)).toBe("records");
    records.push(...event.data.records);
    lastId = event.id;
  }
  return { records, lastId };
}
