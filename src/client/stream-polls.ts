/**
 * The group consumer's records over WebSocket streams (`consumer({ groupId, transport:
 * "websocket" })`, docs/client.md, "Consumer"): the consumer asks it for records as it asks
 * the group poll, and it answers the same shape (records, positions, assignment), but reads
 * each assigned partition's WebSocket stream (stream.ts), held by the partition's leader —
 * a waiting stream bills no request and no duration. The group sees only the membership:
 *
 *   join ──► [commit ──► heartbeat] each interval, between batches ──► assignment
 *                                                       │
 *   assigned, unpaused partition ──► stream from committed offset (else autoOffsetReset)
 *   revoked ──► its stream closed, its records dropped ──► a heartbeat at once lets it go
 *
 * Commits (autoCommit): the positions the consumer finished, at most every
 * `autoCommitIntervalMs`, and always just before a heartbeat. A revoking answer arrives only
 * from a heartbeat, and the coordinator refuses commits for a partition once it took it away:
 * so everything processed is committed before any heartbeat that can take a partition away,
 * and no record of a revoked partition is handed out after it. (The member's own timer still
 * heartbeats a handler that runs two intervals; a partition revoked then may see the records
 * it processed since the last commit again, as with the poll transport.)
 *
 * Memory: each partition's stream is read only while fewer than `maxRecords` records and
 * `maxBytes` bytes of it wait here; the WebSocket's credit window (stream-websocket.ts) holds
 * the server back beyond that.
 */
import { isTributaryError } from "./errors.ts";
import type { GroupMember, PollRequest } from "./group-member.ts";
import type { ClientLog } from "./logger.ts";
import type { ConsumedMessage } from "./records.ts";
import { sleep, withRetries, type RetryPolicy } from "./retry.ts";
import { path, type Transport } from "./transport.ts";
import { after, nextTurn } from "./turns.ts";
import type { Assignment, Position } from "./types.ts";

/** What the consumer processes next: a poll's answer, its records decoded. */
export interface SourceAnswer {
  assignment: Assignment;
  records: ConsumedMessage[];
  positions: Position[];
}

/** Where the consumer's records come from: the group poll (consumer.ts) or the partitions' streams (here). */
export interface RecordSource {
  /** Undefined when the member was fenced or expired and is back in the group. */
  poll(request: PollRequest, signal: AbortSignal): Promise<SourceAnswer | undefined>;
  /** The member lost its partitions (fenced, expired): what was read for them is dropped. */
  lost(): void;
  close(): void;
}

export interface StreamPollsOptions {
  member: GroupMember;
  groupId: string;
  calls: { transport: Transport; policy: RetryPolicy; log: ClientLog };
  /** A partition's records from `from` on, those that arrived together at a time (the client's WebSocket stream, `streamBatches`), ended by `signal`. */
  stream(topic: string, partition: number, from: number, signal: AbortSignal): AsyncIterator<ConsumedMessage[]>;
  offset(topic: string, partition: number, at: "earliest" | "latest"): Promise<number>;
  autoOffsetReset: "earliest" | "latest";
  autoCommitIntervalMs: number;
}

/** Out of touch with the coordinator: how often a heartbeat is tried before records are handed out again. */
const outOfTouchRetryMs = 1_000;
/** As the server's poll: records and bytes waiting per partition, unless the consumer asks for fewer. */
const bufferedRecordsDefault = 500;
const bufferedBytesDefault = 1024 * 1024;

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;
const sizeOf = (record: ConsumedMessage) => 64 + (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0);

/** One partition's open stream, read ahead within the bounds. */
class Feed {
  readonly buffer: ConsumedMessage[] = [];
  error: unknown;
  ended = false;
  #bytes = 0;
  readonly #stop = new AbortController();
  #room: (() => void) | undefined;

  constructor(open: (signal: AbortSignal) => AsyncIterator<ConsumedMessage[]>, bounds: { records: number; bytes: number }, wake: () => void) {
    void this.#pump(open(this.#stop.signal), bounds, wake);
  }

  /** Takes the stream's records a frame at a time while the buffer is within its bounds (a frame may take it past them). */
  async #pump(frames: AsyncIterator<ConsumedMessage[]>, bounds: { records: number; bytes: number }, wake: () => void): Promise<void> {
    const stopped = this.#stop.signal;
    try {
      for (;;) {
        while (!stopped.aborted && (this.buffer.length >= bounds.records || this.#bytes >= bounds.bytes)) {
          await new Promise<void>((resolve) => (this.#room = resolve));
        }
        if (stopped.aborted) return;
        const next = await frames.next();
        if (stopped.aborted) return;
        if (next.done) {
          this.ended = true;
          return wake();
        }
        for (const record of next.value) {
          this.buffer.push(record);
          this.#bytes += sizeOf(record);
        }
        wake();
      }
    } catch (error) {
      if (stopped.aborted) return;
      this.error = error;
      wake();
    } finally {
      // A stream waiting at a record it yielded closes its connection here.
      await frames.return?.().catch(() => undefined);
    }
  }

  take(max: number): ConsumedMessage[] {
    const taken = this.buffer.splice(0, max);
    for (const record of taken) this.#bytes -= sizeOf(record);
    this.#room?.();
    return taken;
  }

  close(): void {
    this.#stop.abort(new Error("the partition's stream was closed"));
    this.#room?.();
  }
}

export class StreamPolls implements RecordSource {
  readonly #options: StreamPollsOptions;
  readonly #feeds = new Map<string, Feed>();
  /** Per assigned partition: the next offset to hand out. */
  readonly #next = new Map<string, Position>();
  /** What this member committed last, per partition: unchanged positions are not sent again. */
  readonly #committed = new Map<string, number>();
  /** Partitions whose offset was out of range: they start again from autoOffsetReset. */
  readonly #reset = new Set<string>();
  /** Partitions whose topic is gone (deleted): not reopened before this time, when a heartbeat will have told whether they are still ours. */
  readonly #notBefore = new Map<string, number>();
  #lastCommitMs = Date.now();
  #lastHeartbeatTryMs = 0;
  #lost = false;
  #wake: (() => void) | undefined;
  #wakeScheduled = false;

  constructor(options: StreamPollsOptions) {
    this.#options = options;
  }

  async poll(request: PollRequest, signal: AbortSignal): Promise<SourceAnswer | undefined> {
    await this.#commitAndHeartbeat(request, signal);
    if (this.#outOfTouch()) {
      // The coordinator has not answered for two intervals (an outage): the session may have run
      // out and the partitions moved. Nothing is handed out until a heartbeat gets through (and
      // rejoins, if so); it is tried again about once a second.
      await sleep(Math.min(outOfTouchRetryMs, this.#options.member.heartbeatIntervalMs), signal);
      return this.#take(0);
    }
    let positions = request.positions;
    if (this.#lost) {
      this.#lost = false;
      this.close();
      this.#next.clear();
      this.#committed.clear();
      positions = [];
    }
    this.#reconcile(positions, request.paused);
    await this.#openMissing(request);
    const commitDueMs = request.autoCommit && this.#uncommitted(positions).length > 0 ? this.#lastCommitMs + this.#options.autoCommitIntervalMs : Infinity;
    await this.#wait(Math.min(Date.now() + (request.waitMs ?? 5_000), commitDueMs), signal);
    return this.#take(request.maxRecords ?? bufferedRecordsDefault);
  }

  lost(): void {
    this.#lost = true;
  }

  close(): void {
    for (const feed of this.#feeds.values()) feed.close();
    this.#feeds.clear();
  }

  /** No answer from the coordinator for two heartbeat intervals. */
  #outOfTouch(): boolean {
    const { member } = this.#options;
    return Date.now() >= member.heartbeatDueMs + member.heartbeatIntervalMs;
  }

  #heartbeatDueMs(): number {
    const { member } = this.#options;
    return Math.max(member.heartbeatDueMs, this.#lastHeartbeatTryMs + member.heartbeatIntervalMs);
  }

  /** With a heartbeat due: commit what was processed first, then heartbeat; let revoked partitions go at once. */
  async #commitAndHeartbeat(request: PollRequest, signal: AbortSignal): Promise<void> {
    const { member, autoCommitIntervalMs } = this.#options;
    const now = Date.now();
    let heartbeatDue = now >= this.#heartbeatDueMs() || this.#outOfTouch();
    if (request.autoCommit && (heartbeatDue || now - this.#lastCommitMs >= autoCommitIntervalMs)) {
      // Refused as fenced or expired: the heartbeat rejoins now, from the committed offsets.
      if (!(await this.#commit(request.positions, signal))) heartbeatDue = true;
    }
    if (!heartbeatDue) return;
    this.#lastHeartbeatTryMs = now;
    await member.heartbeat();
    const assigned = assignedKeys(member.assignment);
    const revoked = [...this.#next.keys()].filter((key) => !assigned.has(key));
    if (revoked.length === 0 || this.#lost) return;
    for (const key of revoked) this.#drop(key);
    await member.heartbeat(); // no longer lists them: the coordinator hands them on
  }

  /** False when the coordinator refused the member (fenced, expired). */
  async #commit(positions: Position[], signal: AbortSignal): Promise<boolean> {
    this.#lastCommitMs = Date.now();
    const changed = this.#uncommitted(positions);
    if (changed.length === 0) return true;
    try {
      await this.#options.member.commit(changed, signal);
    } catch (error) {
      if (isTributaryError(error, "FENCED_MEMBER_EPOCH") || isTributaryError(error, "UNKNOWN_MEMBER_ID")) return false;
      throw error;
    }
    for (const { topic, partition, offset } of changed) this.#committed.set(keyOf(topic, partition), offset);
    return true;
  }

  /** The positions of assigned partitions that differ from what this member committed last. */
  #uncommitted(positions: Position[]): Position[] {
    const assigned = assignedKeys(this.#options.member.assignment);
    return positions.filter(({ topic, partition, offset }) => assigned.has(keyOf(topic, partition)) && this.#committed.get(keyOf(topic, partition)) !== offset);
  }

  #drop(key: string): void {
    this.#feeds.get(key)?.close();
    this.#feeds.delete(key);
    this.#next.delete(key);
    this.#committed.delete(key);
    this.#reset.delete(key);
    this.#notBefore.delete(key);
  }

  /** Revoked partitions dropped; a position other than where the stream is (a seek, a record to retry) reopens it; paused ones closed. */
  #reconcile(positions: Position[], paused: Assignment): void {
    const assigned = assignedKeys(this.#options.member.assignment);
    for (const key of [...this.#next.keys()]) if (!assigned.has(key)) this.#drop(key);
    for (const position of positions) {
      const key = keyOf(position.topic, position.partition);
      if (!assigned.has(key) || this.#next.get(key)?.offset === position.offset) continue;
      this.#feeds.get(key)?.close();
      this.#feeds.delete(key);
      this.#next.set(key, { topic: position.topic, partition: position.partition, offset: position.offset });
    }
    for (const key of assignedKeys(paused)) {
      this.#feeds.get(key)?.close();
      this.#feeds.delete(key);
    }
    for (const [key, feed] of this.#feeds) {
      if (feed.ended) this.#feeds.delete(key);
      if (feed.error === undefined) continue;
      this.#feeds.delete(key);
      if (isTributaryError(feed.error, "UNKNOWN_TOPIC_OR_PARTITION")) {
        // Deleted: the coordinator takes it out of the assignment, which a heartbeat brings.
        this.#notBefore.set(key, this.#heartbeatDueMs());
        continue;
      }
      if (!isTributaryError(feed.error, "OFFSET_OUT_OF_RANGE")) throw feed.error;
      this.#reset.add(key); // the committed offset is gone (retention): autoOffsetReset
      this.#next.delete(key);
    }
  }

  /** Opens a stream for each assigned, unpaused partition without one; where it starts is asked for once. */
  async #openMissing(request: PollRequest): Promise<void> {
    const { member, autoOffsetReset } = this.#options;
    const paused = assignedKeys(request.paused);
    const now = Date.now();
    const missing = member.assignment.flatMap(({ topic, partitions }) =>
      partitions
        .map((partition) => ({ topic, partition, key: keyOf(topic, partition) }))
        .filter(({ key }) => !paused.has(key) && !this.#feeds.has(key) && (this.#notBefore.get(key) ?? 0) <= now),
    );
    if (missing.length === 0) return;
    const unknown = missing.filter(({ key }) => !this.#next.has(key));
    if (unknown.length > 0) {
      const committed = unknown.some(({ key }) => !this.#reset.has(key)) ? await this.#committedOffsets() : new Map<string, number>();
      for (const { topic, partition, key } of unknown) {
        const offset = (this.#reset.has(key) ? undefined : committed.get(key)) ?? (await this.#options.offset(topic, partition, autoOffsetReset));
        this.#reset.delete(key);
        this.#next.set(key, { topic, partition, offset });
      }
    }
    const bounds = { records: request.maxRecords ?? bufferedRecordsDefault, bytes: request.maxBytes ?? bufferedBytesDefault };
    // A stream hands its frame's records over one at a time: the poll waiting for them is woken
    // on the next turn of the event loop, with the whole frame in (up to the bounds), not per record.
    const wake = () => {
      if (this.#wakeScheduled) return;
      this.#wakeScheduled = true;
      after(0, () => {
        this.#wakeScheduled = false;
        this.#wake?.();
        this.#wake = undefined;
      });
    };
    const assigned = assignedKeys(member.assignment); // a heartbeat may have taken some while offsets were asked for
    for (const { topic, partition, key } of missing) {
      if (!assigned.has(key)) continue;
      const from = this.#next.get(key)!.offset;
      this.#feeds.set(key, new Feed((signal) => this.#options.stream(topic, partition, from, signal), bounds, wake));
    }
  }

  async #committedOffsets(): Promise<Map<string, number>> {
    const { groupId, calls } = this.#options;
    const answer = await withRetries(
      () => calls.transport.json<{ offsets: { topic: string; partition: number; offset: number | null }[] }>({ method: "GET", path: path("groups", groupId, "offsets") }),
      { policy: calls.policy, log: calls.log },
    );
    const committed = new Map<string, number>();
    for (const { topic, partition, offset } of answer.offsets) if (offset !== null) committed.set(keyOf(topic, partition), offset);
    return committed;
  }

  /** Until a stream has records (or failed), `untilMs` (the poll's wait, a commit due), a heartbeat is due, or the consumer stops. */
  async #wait(untilMs: number, signal: AbortSignal): Promise<void> {
    const ready = () => [...this.#feeds.values()].some((feed) => feed.buffer.length > 0 || feed.error !== undefined || feed.ended);
    if (ready()) return nextTurn(); // the frames arriving meanwhile join this poll's records
    untilMs = Math.min(untilMs, this.#heartbeatDueMs());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      timer = setTimeout(resolve, Math.max(0, untilMs - Date.now()));
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    });
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort!);
    this.#wake = undefined;
    signal.throwIfAborted();
  }

  /** Up to `maxRecords` records, partitions in turn, and every assigned partition's position after them. */
  #take(maxRecords: number): SourceAnswer {
    const records: ConsumedMessage[] = [];
    let feeds = [...this.#feeds].filter(([, feed]) => feed.buffer.length > 0);
    while (records.length < maxRecords && feeds.length > 0) {
      const share = Math.max(1, Math.floor((maxRecords - records.length) / feeds.length));
      for (const [key, feed] of feeds) {
        const taken = feed.take(Math.min(share, maxRecords - records.length));
        if (taken.length === 0) continue;
        records.push(...taken);
        this.#next.set(key, { topic: taken[0]!.topic, partition: taken[0]!.partition, offset: taken.at(-1)!.offset + 1 });
      }
      feeds = feeds.filter(([, feed]) => feed.buffer.length > 0);
    }
    const assignment = this.#options.member.assignment;
    const assigned = assignedKeys(assignment);
    const positions = [...this.#next].filter(([key]) => assigned.has(key)).map(([, position]) => position);
    return { assignment, records, positions };
  }
}

function assignedKeys(assignment: Assignment): Set<string> {
  const keys = new Set<string>();
  for (const { topic, partitions } of assignment) for (const partition of partitions) keys.add(keyOf(topic, partition));
  return keys;
}
