/**
 * The streaming reads of the fake server (docs/api.md, "Streaming reads"): SSE on a partition
 * and on a whole topic, and a fake WebSocket class for partition streams, all over the fake's
 * stored batches — one frame per stored batch, new batches pushed as they are produced.
 *
 * Faults: `sse.framesPerConnection` ends each SSE stream cleanly after that many frames (the
 * server's time limit); `sse.breakAfterFrames` breaks it (a dropped connection); `sse.errorEvent`
 * ends the next stream with `event: error`. `sockets` are the fake WebSockets opened; each can
 * be closed with any code (and an error frame first), and the `credits` they received are kept.
 */
import { encodeBase64 } from "../../../../src/protocol/base64.ts";
import { decodeRecordBatch } from "../../../../src/protocol/record-batch-decode.ts";
import { recordBatchSubprotocol, type WebSocketLike } from "../../../../src/client/stream-websocket.ts";
import { afterCredit, afterFrame, openedAt, partsThatFit, type SubscriberPosition } from "../../../../src/log/subscriber-window.ts";
import { serverCreditWindow, type CreditWindow } from "../../../../src/protocol/stream-credit.ts";

export interface StreamedBatch {
  bytes: Uint8Array;
  baseOffset: number;
  lastOffset: number;
}

/** What the fake server lets the streams see. */
export interface StreamSource {
  /** The batches of a partition, or undefined when the topic or partition does not exist. */
  log(topic: string, partition: number): StreamedBatch[] | undefined;
  partitions(topic: string): number | undefined;
}

export interface SseConnection {
  path: string;
  offset: string | null;
  lastEventId: string | null;
  accessToken: string | null;
}

const utf8 = new TextEncoder();

function endOf(log: StreamedBatch[]): number {
  return log.length === 0 ? 0 : log.at(-1)!.lastOffset + 1;
}

/** A batch's records in fetch's JSON shape (from `from` on). */
function jsonRecords(batch: StreamedBatch, from: number, encoding: string, partition?: number) {
  const text = (bytes: Uint8Array | null) => (bytes === null ? null : encoding === "utf8" ? new TextDecoder().decode(bytes) : encodeBase64(bytes));
  return decodeRecordBatch(batch.bytes)
    .records.filter((record) => record.offset >= from)
    .map((record) => ({
      ...(partition === undefined ? {} : { partition }),
      offset: record.offset,
      timestamp: record.timestamp,
      key: text(record.key),
      value: text(record.value),
      headers: Object.fromEntries(record.headers.map((h) => [h.key, h.value === null ? null : new TextDecoder().decode(h.value)])),
    }));
}

export class FakeStreams {
  readonly #source: StreamSource;
  readonly #waiters = new Set<() => void>();
  readonly sse = {
    framesPerConnection: Infinity,
    breakAfterFrames: Infinity,
    errorEvent: undefined as { code: string; message: string; [field: string]: unknown } | undefined,
    connections: [] as SseConnection[],
  };
  readonly sockets: FakeSocket[] = [];
  /** Each socket's flow-control window (docs/api.md: starts at 1 MiB, credit may grow it to 4 MiB). */
  window: CreditWindow = { ...serverCreditWindow };
  /** The constructor to give the client as `webSocket`. */
  readonly WebSocket: new (url: string, protocols?: string | string[]) => FakeSocket;
  /**
   * When set, a socket handshake fails, as a refused upgrade looks to a client: `close` with
   * 1006 after an error, or only the error (Node's WebSocket when the connection breaks).
   */
  refuseSockets: false | "close" | "error only" = false;

  constructor(source: StreamSource) {
    this.#source = source;
    const streams = this;
    this.WebSocket = class extends FakeSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(streams, url, protocols);
        streams.sockets.push(this);
      }
    };
  }

  /** Something was produced: every waiting stream looks again. */
  wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
    this.#waiters.clear();
  }

  source(): StreamSource {
    return this.#source;
  }

  waitForChange(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** `GET …/partitions/{p}/records` with `Accept: text/event-stream`. */
  partitionSse(topic: string, partition: number, url: URL, headers: Headers, signal: AbortSignal): Response {
    const lastEventId = headers.get("last-event-id");
    this.sse.connections.push({ path: url.pathname, offset: url.searchParams.get("offset"), lastEventId, accessToken: url.searchParams.get("access_token") });
    const encoding = url.searchParams.get("encoding") ?? "utf8";
    const log = () => this.#source.log(topic, partition) ?? [];
    const requested = lastEventId ?? url.searchParams.get("offset") ?? "latest";
    let position = requested === "earliest" ? 0 : requested === "latest" ? endOf(log()) : Number(requested);
    return this.#eventStream(signal, () => {
      const batch = log().find((candidate) => candidate.lastOffset >= position);
      if (batch === undefined) return undefined;
      const records = jsonRecords(batch, position, encoding);
      position = batch.lastOffset + 1;
      return { id: String(position), data: { records, nextOffset: position, highWatermark: endOf(log()), logStartOffset: 0 } };
    });
  }

  /** `GET /v1/topics/{t}/records` with `Accept: text/event-stream`: the id is `p0.p1.…` next offsets. */
  topicSse(topic: string, url: URL, headers: Headers, signal: AbortSignal): Response {
    const lastEventId = headers.get("last-event-id");
    this.sse.connections.push({ path: url.pathname, offset: url.searchParams.get("offset"), lastEventId, accessToken: url.searchParams.get("access_token") });
    const encoding = url.searchParams.get("encoding") ?? "utf8";
    const count = this.#source.partitions(topic) ?? 0;
    const latest = url.searchParams.get("offset") !== "earliest";
    const positions = Array.from({ length: count }, (_, p) => (lastEventId !== null ? Number(lastEventId.split(".")[p]) : latest ? endOf(this.#source.log(topic, p)!) : 0));
    let turn = 0;
    return this.#eventStream(signal, () => {
      for (let step = 0; step < count; step++) {
        const partition = (turn + step) % count;
        const batch = this.#source.log(topic, partition)!.find((candidate) => candidate.lastOffset >= positions[partition]!);
        if (batch === undefined) continue;
        const records = jsonRecords(batch, positions[partition]!, encoding, partition);
        positions[partition] = batch.lastOffset + 1;
        turn = partition + 1;
        return { id: positions.join("."), data: { records, positions: Object.fromEntries(positions.map((offset, p) => [String(p), offset])) } };
      }
      return undefined;
    });
  }

  /**
   * An event stream that ends only when its reader cancels it, not when the request's signal
   * aborts: Node's fetch does not always end a body being read on an abort (stream-sse.ts).
   */
  #eventStream(_requestSignal: AbortSignal, nextFrame: () => { id: string; data: unknown } | undefined): Response {
    const cancelled = new AbortController();
    const signal = cancelled.signal;
    const limits = { ...this.sse };
    const errorEvent = this.sse.errorEvent;
    this.sse.errorEvent = undefined;
    let frames = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (frames === 0 && errorEvent === undefined) controller.enqueue(utf8.encode(": keepalive\n\n"));
        for (;;) {
          if (signal.aborted) return controller.close();
          if (errorEvent !== undefined) {
            controller.enqueue(utf8.encode(`event: error\ndata: ${JSON.stringify({ error: errorEvent })}\n\n`));
            return controller.close();
          }
          if (frames >= limits.breakAfterFrames) return controller.error(new TypeError("terminated (the fake broke the connection)"));
          if (frames >= limits.framesPerConnection) return controller.close();
          const frame = nextFrame();
          if (frame !== undefined) {
            frames++;
            // CRLF line ends: the client's parser must take them as LF.
            return controller.enqueue(utf8.encode(`event: records\r\nid: ${frame.id}\r\ndata: ${JSON.stringify(frame.data)}\r\n\r\n`));
          }
          await this.waitForChange(signal);
        }
      },
      cancel: () => cancelled.abort(),
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  }
}

/** A WebSocket as the client sees one, served from the fake's log with docs/api.md's flow control. */
export class FakeSocket implements WebSocketLike {
  binaryType = "blob";
  protocol = "";
  readyState = 0;
  readonly url: URL;
  readonly credits: number[] = [];
  /** Bytes of each frame sent, in order. */
  readonly sent: number[] = [];
  readonly #streams: FakeStreams;
  readonly #listeners = new Map<string, ((event: any) => void)[]>();
  readonly #stop = new AbortController();
  /** The frame bytes this socket may still be sent, as the leader keeps it (src/log/subscriber-window.ts). */
  #position: SubscriberPosition;

  constructor(streams: FakeStreams, url: string, protocols?: string | string[]) {
    this.#streams = streams;
    this.url = new URL(url);
    this.#position = openedAt(0, "binary", streams.window);
    const asked = typeof protocols === "string" ? [protocols] : (protocols ?? []);
    setTimeout(() => {
      const [, , , topic, , partition] = this.url.pathname.split("/").map(decodeURIComponent);
      const log = streams.source().log(topic!, Number(partition));
      if (streams.refuseSockets === "error only") return this.#emit("error", {});
      if (streams.refuseSockets === "close" || log === undefined) return this.#closed(1006, "");
      this.protocol = asked.includes(recordBatchSubprotocol) ? recordBatchSubprotocol : "";
      this.readyState = 1;
      this.#emit("open", {});
      void this.#push(topic!, Number(partition));
    }, 1);
  }

  addEventListener(type: string, listener: (event: any) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    const message = JSON.parse(data) as { credit?: number };
    if (typeof message.credit !== "number") return this.serverClose(4400, "only credit messages");
    this.credits.push(message.credit);
    this.#position = afterCredit(this.#position, message.credit, this.#streams.window);
    this.#streams.wake();
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    setTimeout(() => this.#closed(code, reason), 1);
  }

  /** The server closes the socket, after an error frame when given. */
  serverClose(code: number, reason = "", error?: Record<string, unknown>): void {
    if (this.readyState !== 1) return;
    if (error !== undefined) this.#emit("message", { data: JSON.stringify({ error }) });
    this.readyState = 2;
    setTimeout(() => this.#closed(code, reason), 1);
  }

  #closed(code: number, reason: string): void {
    this.readyState = 3;
    this.#stop.abort();
    this.#emit("close", { code, reason });
  }

  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(event);
  }

  async #push(topic: string, partition: number): Promise<void> {
    const requested = this.url.searchParams.get("offset") ?? "latest";
    const log = () => this.#streams.source().log(topic, partition) ?? [];
    let position = requested === "earliest" ? 0 : requested === "latest" ? endOf(log()) : Number(requested);
    while (!this.#stop.signal.aborted && this.readyState === 1) {
      const batch = log().find((candidate) => candidate.lastOffset >= position);
      if (batch !== undefined && partsThatFit(1, this.#position, this.#streams.window, () => batch.bytes.length) === 1) {
        const frame = batch.bytes.slice().buffer;
        this.#position = afterFrame(this.#position, frame.byteLength, batch.lastOffset + 1);
        this.sent.push(frame.byteLength);
        position = batch.lastOffset + 1;
        this.#emit("message", { data: frame });
        continue;
      }
      await this.#streams.waitForChange(this.#stop.signal);
    }
  }
}
