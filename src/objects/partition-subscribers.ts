import { toResult, TributaryError } from "../errors.ts";
import { fetchMaxRecordsMax, streamsPerPartitionMax, streamsPerTokenMax, streamStalledMsMax } from "../limits.ts";
import { recordsInWindow, skippedBatch } from "../log/fetched-records.ts";
import type { PartitionLog, ReadLimits, ReadResult } from "../log/partition-log.ts";
import {
  afterCredit,
  afterFrame,
  creditMayUnblock,
  openedAt,
  parseCredit,
  partsThatFit,
  positionGroups,
  readBytesFor,
  stallDeadline,
  withStall,
  type SubscriberMode,
  type SubscriberPosition,
} from "../log/subscriber-window.ts";
import { concatBytes } from "../protocol/bytes.ts";
import { readBatchHeader } from "../protocol/record-batch.ts";
import { recordJson } from "../protocol/record-json.ts";
import { serverCreditWindow } from "../protocol/stream-credit.ts";
import { recordBatchSubprotocol, subscribeHeader, type SubscribeRequest } from "../contracts/replica-api.ts";
import { countBilled } from "../contracts/billing-meter.ts";

/** How long a client told "too many streams for this token" waits before retrying (as SSE's refusal). */
const tooManyStreamsRetryAfterMs = 1_000;

/** Close codes (docs/api.md, "WebSocket on a partition"). */
export const closeCodes = { badMessage: 4400, topicDeleted: 4404, outOfRange: 4416, tooSlow: 4429, moved: 4503 } as const;

/** What a socket keeps across hibernation (serializeAttachment, far below 2 KB); its token is in its tags. */
type Attachment = SubscriberPosition;

/** Where the partition stands for its subscribers. */
export type SubscribedPartition =
  | { kind: "leader"; log: PartitionLog }
  | { kind: "deleted" }
  | { kind: "not-leader" };

export interface SubscribersHost {
  ctx: DurableObjectState;
  partition(): SubscribedPartition;
  /** Committed batches from `offset` (tail cache, SQLite or R2), as a leader's fetch reads them. */
  readCommitted(offset: number, limits: ReadLimits): Promise<ReadResult>;
  setAlarm(atMs: number): Promise<void>;
}

/** Counters for the debug statistics (src/objects/replica-debug-stats.ts). */
export class SubscriberCounters {
  framesPushed = 0;
  bytesPushed = 0;
  /** Reads of the log made for subscribers: one per group of subscribers at one position. */
  reads = 0;
  /** Push runs (each goes over every subscriber): one per commit at most while one runs, and per credit that may unblock a subscriber. */
  pushes = 0;
  /** Messages received from subscribers (credit, or what closed a socket with 4400): Cloudflare bills 20 as one request. */
  messages = 0;
}

const subscriberTag = "subscriber";
const tokenTag = (tokenKey: string) => `token:${tokenKey}`;
const encoder = new TextEncoder();

/**
 * A partition leader's WebSocket subscribers (docs/api.md; ARCHITECTURE.md decisions 11–12),
 * held with the hibernation API: every socket's position and credit live in its attachment,
 * so an evicted object wakes with them. On each commit (`notify`) the leader reads each range
 * once for all subscribers at that position and sends each the frame its credit allows;
 * nothing is buffered per socket beyond the frame being sent. A subscriber without room while
 * records wait for streamStalledMsMax is closed with 4429, found at a push or by the alarm.
 */
export class PartitionSubscribers {
  readonly counters = new SubscriberCounters();
  readonly #host: SubscribersHost;
  #pushing: Promise<void> | undefined;
  #again = false;

  constructor(host: SubscribersHost) {
    this.#host = host;
  }

  get size(): number {
    return this.#host.ctx.getWebSockets(subscriberTag).length;
  }

  /**
   * The upgrade the router forwards, its subscribe request in the Tributary-Subscribe header.
   * `admit` checks the call as any routed call (and fails as an unreachable replica does).
   * Refusals answer a JSON Result, which the router turns into the HTTP error.
   */
  async upgrade(request: Request, admit: (subscribe: SubscribeRequest) => Promise<PartitionLog>): Promise<Response> {
    const result = await toResult(async () => {
      if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") throw new TributaryError("INVALID_REQUEST", "a partition object takes only WebSocket upgrades");
      const subscribe = JSON.parse(request.headers.get(subscribeHeader) ?? "null") as SubscribeRequest;
      return this.accept(subscribe, await admit(subscribe));
    });
    return result.ok ? result.value : Response.json(result, { status: 400 });
  }

  /** Accepts an upgrade as the leader: the limits first, then the socket, then a first push. */
  accept(request: SubscribeRequest, log: PartitionLog): Response {
    const ctx = this.#host.ctx;
    if (this.size >= streamsPerPartitionMax) {
      throw new TributaryError("BROKER_BUSY", `this partition has ${streamsPerPartitionMax} subscribers (streamsPerPartitionMax); retry shortly`);
    }
    if (request.tokenKey !== undefined && ctx.getWebSockets(tokenTag(request.tokenKey)).length >= streamsPerTokenMax) {
      throw new TributaryError(
        "THROTTLING_QUOTA_EXCEEDED",
        `this token holds ${streamsPerTokenMax} streams on this partition (streamsPerTokenMax)`,
        { retryAfterMs: tooManyStreamsRetryAfterMs },
      );
    }
    const uncommitted = request.isolation === "read_uncommitted";
    // latest: where a reader of this isolation stands at the end (Kafka's ListOffsets by isolation level).
    const latest = uncommitted ? log.highWatermark : log.lastStableOffset;
    const next = request.offset === "earliest" ? log.logStartOffset : request.offset === "latest" ? latest : request.offset;
    if (next < log.logStartOffset || next > log.logEndOffset) {
      throw new TributaryError("OFFSET_OUT_OF_RANGE", `offset ${next} is outside the log [${log.logStartOffset}, ${log.logEndOffset}]`, {
        logStartOffset: log.logStartOffset,
        highWatermark: log.highWatermark,
      });
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const tags = request.tokenKey === undefined ? [subscriberTag] : [subscriberTag, tokenTag(request.tokenKey)];
    ctx.acceptWebSocket(server, tags);
    const attachment: Attachment = { ...openedAt(next, request.mode, serverCreditWindow), ...(uncommitted ? { uncommitted: true as const } : {}) };
    server.serializeAttachment(attachment);
    void this.notify();
    const headers = request.mode === "binary" ? { "Sec-WebSocket-Protocol": recordBatchSubprotocol } : undefined;
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  /**
   * A client message: credit, or anything else (closed with 4400). Credit starts a push only
   * when it may unblock the socket (records wait for it), or when the partition is no longer
   * led here (the push closes the socket); a socket caught up waits for the next commit's push.
   */
  onMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    this.counters.messages++;
    countBilled("websocketMessages");
    const credit = parseCredit(message);
    if (credit === undefined) {
      closeWithError(socket, closeCodes.badMessage, new TributaryError("INVALID_REQUEST", 'a subscriber sends only {"credit": <bytes>} messages'));
      return Promise.resolve();
    }
    const attachment = attachmentOf(socket);
    if (!attachment) return Promise.resolve();
    const position = afterCredit(attachment, credit, serverCreditWindow);
    socket.serializeAttachment(position);
    const partition = this.#host.partition();
    if (partition.kind === "leader" && !creditMayUnblock(position, visibleEnd(position, partition.log))) return Promise.resolve();
    return this.notify();
  }

  /** A socket the client closed or that failed: the runtime drops it; nothing else is held for it. */
  onClose(socket: WebSocket, code: number): void {
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }

  /** Closes every subscriber with an error frame and a close code (a deleted topic, a lost leadership). */
  closeAll(code: number, error: TributaryError): void {
    for (const socket of this.#host.ctx.getWebSockets(subscriberTag)) closeWithError(socket, code, error);
  }

  /**
   * Pushes what is committed to every subscriber with room, one run at a time: a notice
   * during a run makes it run once more. Called on every commit, on credit, and by the alarm.
   */
  notify(): Promise<void> {
    // Every append calls this: with no subscriber (the usual case) it is one lookup, no run.
    if (!this.#pushing && this.size === 0) return Promise.resolve();
    if (this.#pushing) {
      this.#again = true;
      return this.#pushing;
    }
    this.#pushing = (async () => {
      try {
        do {
          this.#again = false;
          await this.#push().catch((error: unknown) => console.error("pushing to subscribers failed; the next commit retries", error));
        } while (this.#again);
      } finally {
        this.#pushing = undefined;
      }
    })();
    return this.#pushing;
  }

  async #push(): Promise<void> {
    if (this.size === 0) return;
    this.counters.pushes++;
    const partition = this.#host.partition();
    if (partition.kind === "deleted") return this.closeAll(closeCodes.topicDeleted, new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", "this topic has been deleted"));
    if (partition.kind === "not-leader") {
      return this.closeAll(closeCodes.moved, new TributaryError("NOT_LEADER_OR_FOLLOWER", "this replica is no longer the partition's leader; reconnect"));
    }
    const log = partition.log;
    for (let progressed = true; progressed; ) {
      progressed = false;
      const subscribers = this.#subscribers(log);
      // read_committed subscribers (the default) and read_uncommitted ones see different frames: one read per position each.
      for (const uncommitted of [false, true]) {
        const those = subscribers.filter(({ position }) => (position.uncommitted === true) === uncommitted);
        for (const [offset, sockets] of positionGroups(those, uncommitted ? log.highWatermark : log.lastStableOffset)) {
          const positions = sockets.map((socket) => attachmentOf(socket)!);
          const read = await this.#host.readCommitted(offset, { maxRecords: fetchMaxRecordsMax, maxBytes: readBytesFor(positions, serverCreditWindow) });
          this.counters.reads++;
          const frames = new FrameParts(read, offset, !uncommitted);
          for (const socket of sockets) if (this.#send(socket, frames)) progressed = true;
        }
      }
    }
    await this.#checkStalls(log);
  }

  /** Every open subscriber with its position; those the log start moved past are closed (4416). */
  #subscribers(log: PartitionLog): { id: WebSocket; position: Attachment }[] {
    const subscribers: { id: WebSocket; position: Attachment }[] = [];
    for (const socket of this.#host.ctx.getWebSockets(subscriberTag)) {
      const position = attachmentOf(socket);
      if (!position) continue;
      if (position.next < log.logStartOffset) {
        const message = `retention moved the log start to ${log.logStartOffset}, past offset ${position.next}`;
        closeWithError(socket, closeCodes.outOfRange, new TributaryError("OFFSET_OUT_OF_RANGE", message, { logStartOffset: log.logStartOffset, highWatermark: log.highWatermark }));
        continue;
      }
      subscribers.push({ id: socket, position });
    }
    return subscribers;
  }

  /** Sends one socket the frame its credit allows (read afresh: credit may have come during the read). */
  #send(socket: WebSocket, frames: FrameParts): boolean {
    const position = attachmentOf(socket);
    if (!position || position.next !== frames.offset) return false;
    const parts = partsThatFit(frames.count, position, serverCreditWindow, (count) => frames.bytes(position.mode, count));
    if (parts === 0) return false;
    const frame = frames.frame(position.mode, parts);
    const bytes = frames.bytes(position.mode, parts); // the frame's length, a text frame's in UTF-8
    try {
      // A binary read_committed frame of markers and aborted batches only has nothing to send: the position moves on.
      if (bytes > 0) socket.send(frame);
    } catch {
      return false; // closed meanwhile
    }
    socket.serializeAttachment(afterFrame(position, bytes, frames.nextOffset(parts)));
    this.counters.framesPushed++;
    this.counters.bytesPushed += bytes;
    return true;
  }

  /** Updates each socket's stall clock; closes those stalled too long (4429); arms the alarm for the next deadline. */
  async #checkStalls(log: PartitionLog): Promise<void> {
    const nowMs = Date.now();
    let nextDeadline = Number.POSITIVE_INFINITY;
    for (const socket of this.#host.ctx.getWebSockets(subscriberTag)) {
      const position = attachmentOf(socket);
      if (!position) continue;
      const updated = withStall(position, visibleEnd(position, log), nowMs);
      if (updated !== position) socket.serializeAttachment(updated);
      const deadline = stallDeadline(updated, streamStalledMsMax);
      if (deadline === undefined) continue;
      if (deadline <= nowMs) {
        const message = `no credit returned for ${streamStalledMsMax} ms while records waited; reconnect from offset ${updated.next}`;
        closeWithError(socket, closeCodes.tooSlow, new TributaryError("THROTTLING_QUOTA_EXCEEDED", message, { nextOffset: updated.next }));
      } else {
        nextDeadline = Math.min(nextDeadline, deadline);
      }
    }
    if (nextDeadline !== Number.POSITIVE_INFINITY) await this.#host.setAlarm(nextDeadline);
  }
}

/** Where a subscriber's records end for now: the high watermark for read_uncommitted, else the last stable offset. */
function visibleEnd(position: SubscriberPosition, log: PartitionLog): number {
  return position.uncommitted === true ? log.highWatermark : log.lastStableOffset;
}

function attachmentOf(socket: WebSocket): Attachment | undefined {
  return (socket.deserializeAttachment() as Attachment | null) ?? undefined;
}

/**
 * An error frame, then the close; the reason is the error code (a close reason is at most 123
 * bytes). The attachment is cleared first, so a socket still listed while its close completes
 * is no subscriber any more.
 */
function closeWithError(socket: WebSocket, code: number, error: TributaryError): void {
  try {
    socket.serializeAttachment(null);
    socket.send(JSON.stringify({ error: { ...error.data, code: error.code, message: error.message } }));
    socket.close(code, error.code);
  } catch {
    // already closed
  }
}

/** The value under `key`, built by `build` the first time it is asked for. */
function builtOnce<T>(built: Map<string, T>, key: string, build: () => T): T {
  let value = built.get(key);
  if (value === undefined) {
    value = build();
    built.set(key, value);
  }
  return value;
}

/**
 * The frames one read makes, for every mode, built lazily and once: a frame is the first
 * `count` batches read — binary: those batches as stored, concatenated; JSON: their records
 * from the requested offset. For read_committed (`committed`) only batches below the last
 * stable offset count, and markers and aborted transactions' batches are no part of a frame
 * (nor their records), though the position moves past them; else batches below the high
 * watermark, as stored. Subscribers at the same position with the same mode and room get the
 * same frame: it is encoded once and the same bytes or text sent to each.
 */
class FrameParts {
  readonly offset: number;
  readonly #read: ReadResult;
  /** Where these frames end: the last stable offset (read_committed) or the high watermark. */
  readonly #end: number;
  readonly #batches: Uint8Array[];
  /** What a binary frame sends of each batch: nothing for a marker or an aborted batch (read_committed). */
  readonly #sent: (Uint8Array | null)[];
  readonly #aborted: ReadResult["abortedTransactions"];
  readonly #json = new Map<"utf8" | "base64", { texts: string[]; bytes: number[] }>();
  /** Frames already built and their lengths, by mode and batch count. */
  readonly #frames = new Map<string, string | Uint8Array>();
  readonly #bytes = new Map<string, number>();

  constructor(read: ReadResult, offset: number, committed: boolean) {
    this.#read = read;
    this.offset = offset;
    this.#end = committed ? (read.lastStableOffset ?? read.highWatermark) : read.highWatermark;
    this.#aborted = committed ? (read.abortedTransactions ?? []) : undefined;
    this.#batches = read.batches.filter((batch) => readBatchHeader(batch).baseOffset < this.#end);
    this.#sent = committed ? this.#batches.map((batch) => (skippedBatch(batch, this.#aborted) ? null : batch)) : this.#batches;
  }

  get count(): number {
    return this.#batches.length;
  }

  /** Where a reader continues after the first `count` batches (past a compaction gap too, never past where these frames end). */
  nextOffset(count: number): number {
    const header = readBatchHeader(this.#batches[count - 1]!);
    return Math.min(header.baseOffset + header.lastOffsetDelta + 1, this.#end);
  }

  bytes(mode: SubscriberMode, count: number): number {
    return builtOnce(this.#bytes, `${mode} ${count}`, () => this.#bytesOf(mode, count));
  }

  #bytesOf(mode: SubscriberMode, count: number): number {
    if (mode === "binary") return this.#sent.slice(0, count).reduce((sum, batch) => sum + (batch?.byteLength ?? 0), 0);
    const parts = this.#parts(mode);
    const nonEmpty = parts.texts.slice(0, count).filter((text) => text !== "").length;
    const records = parts.bytes.slice(0, count).reduce((sum, bytes) => sum + bytes, 0) + Math.max(0, nonEmpty - 1);
    return records + encoder.encode(this.#envelope(count, "")).byteLength;
  }

  frame(mode: SubscriberMode, count: number): string | Uint8Array {
    return builtOnce(this.#frames, `${mode} ${count}`, () => {
      if (mode === "binary") return concatBytes(this.#sent.slice(0, count).filter((batch) => batch !== null));
      const texts = this.#parts(mode).texts.slice(0, count).filter((text) => text !== "");
      return this.#envelope(count, texts.join(","));
    });
  }

  #envelope(count: number, records: string): string {
    const { highWatermark, logStartOffset } = this.#read;
    return `{"records":[${records}],"nextOffset":${this.nextOffset(count)},"highWatermark":${highWatermark},"logStartOffset":${logStartOffset}}`;
  }

  /** Each batch's records as JSON text (comma-separated), and its UTF-8 bytes. */
  #parts(encoding: "utf8" | "base64"): { texts: string[]; bytes: number[] } {
    let parts = this.#json.get(encoding);
    if (!parts) {
      parts = { texts: [], bytes: [] };
      const window = { fromOffset: this.offset, untilOffset: this.#end, maxRecords: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER, abortedTransactions: this.#aborted };
      for (const batch of this.#batches) {
        const { records } = recordsInWindow([batch], window);
        const text = records.map((record) => JSON.stringify(recordJson(record, encoding))).join(",");
        parts.texts.push(text);
        parts.bytes.push(encoder.encode(text).byteLength);
      }
      this.#json.set(encoding, parts);
    }
    return parts;
  }
}
