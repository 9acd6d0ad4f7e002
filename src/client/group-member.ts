/**
 * One consumer's membership in a group (API.md, Consumer groups; KIP-848 on the server): its
 * id, epoch and assignment, and every request a member makes — join, poll, heartbeat, commit,
 * leave. Requests go one at a time, so each answer's epoch is the latest; a heartbeat that
 * comes due while a poll is in flight is skipped, since the poll heartbeats too.
 *
 * Fencing: FENCED_MEMBER_EPOCH means the member must give up every partition and rejoin with
 * epoch 0 under its id; UNKNOWN_MEMBER_ID (it expired) means joining anew. Either way the
 * positions it had not committed are gone, and `onLost` tells the consumer to drop them: the
 * group's committed offsets take over, so records are seen again, never skipped.
 */
import { isRetriable } from "../errors.ts";
import { isTributaryError } from "./errors.ts";
import type { ClientLog } from "./logger.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import { path, type Transport } from "./transport.ts";
import type { Assignment, CommittedPosition, Position } from "./types.ts";

export interface MemberOptions {
  groupId: string;
  sessionTimeoutMs?: number;
  assignor?: "uniform" | "range";
  clientId?: string;
}

export interface PollRequest {
  positions: Position[];
  autoCommit: boolean;
  maxRecords?: number;
  maxBytes?: number;
  waitMs?: number;
  paused: Assignment;
  /** docs/transactions.md; the server's default is read_committed. */
  isolation?: "read_committed" | "read_uncommitted";
}

export interface PolledRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  /** A record written by a Kafka client may hold a null header value. */
  headers: Record<string, string | null>;
}

export interface PollAnswer {
  memberEpoch: number;
  assignment: Assignment;
  records: PolledRecord[];
  positions: Position[];
}

interface MemberAnswer {
  memberEpoch: number;
  assignment: Assignment;
  heartbeatIntervalMs?: number;
}

/** Used until the coordinator says otherwise (Kafka's group.consumer.heartbeat.interval.ms). */
const heartbeatIntervalMsDefault = 5_000;

export class GroupMember {
  readonly #transport: Transport;
  readonly #policy: RetryPolicy;
  readonly #options: MemberOptions;
  readonly #log: ClientLog;
  #topics: string[] = [];
  #autoOffsetReset: "earliest" | "latest" = "latest";
  memberId: string | undefined;
  memberEpoch = 0;
  assignment: Assignment = [];
  heartbeatIntervalMs = heartbeatIntervalMsDefault;
  /** Moves whenever the assignment changes: a batch fetched under an older one may be stale. */
  generation = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #busy = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastContactMs = 0;
  /** Partitions the consumer still works on, reported as owned until it is done with them. */
  #stillOwned: () => Assignment = () => [];
  onLost: () => void = () => {};
  onAssignment: (assignment: Assignment) => void = () => {};

  constructor(transport: Transport, policy: RetryPolicy, options: MemberOptions, log: ClientLog) {
    this.#transport = transport;
    this.#policy = policy;
    this.#options = options;
    this.#log = log;
  }

  get joined(): boolean {
    return this.memberId !== undefined;
  }

  async join(topics: string[], autoOffsetReset: "earliest" | "latest", signal?: AbortSignal): Promise<void> {
    this.#topics = topics;
    this.#autoOffsetReset = autoOffsetReset;
    await this.#exclusive(() => this.#joinNow(signal));
  }

  /** A poll: heartbeats, commits `positions` (with autoCommit), and reads. Rejoins when fenced and answers no records. */
  async poll(request: PollRequest, signal: AbortSignal): Promise<PollAnswer | undefined> {
    return this.#exclusive(async () => {
      try {
        const answer = await this.#transport.json<PollAnswer>({
          method: "POST",
          path: path("groups", this.#options.groupId, "members", this.memberId!, "poll"),
          json: { memberEpoch: this.memberEpoch, ...request, encoding: "base64" },
          waitMs: request.waitMs,
          signal,
        });
        this.#apply(answer);
        return answer;
      } catch (error) {
        if (await this.#recover(error, signal)) return undefined;
        throw error;
      }
    });
  }

  /** Commits positions under the member's id and epoch (for partitions it owns). */
  async commit(positions: CommittedPosition[], signal?: AbortSignal): Promise<void> {
    if (positions.length === 0) return;
    await this.#exclusive(() =>
      withRetries(
        () =>
          this.#transport.empty({
            method: "POST",
            path: path("groups", this.#options.groupId, "offsets"),
            json: { memberId: this.memberId, memberEpoch: this.memberEpoch, offsets: positions },
            signal,
          }),
        { policy: this.#policy, log: this.#log, signal },
      ),
    );
  }

  /** Heartbeats now unless another request is in flight (it heartbeats too). */
  async heartbeat(): Promise<void> {
    if (this.#busy > 0 || !this.joined) return;
    await this.#exclusive(async () => {
      try {
        const owned = mergeAssignments(this.assignment, this.#stillOwned());
        const answer = await this.#transport.json<MemberAnswer>({
          method: "POST",
          path: path("groups", this.#options.groupId, "members", this.memberId!, "heartbeat"),
          json: { memberEpoch: this.memberEpoch, ownedPartitions: owned },
        });
        this.#apply(answer);
      } catch (error) {
        if (await this.#recover(error)) return;
        if (!isRetriable(error)) throw error;
        // A missed heartbeat is retried at the next tick; the session outlasts two of them.
      }
    });
  }

  /** When the next heartbeat is due: an interval after the last answer from the coordinator. */
  get heartbeatDueMs(): number {
    return this.#lastContactMs + this.heartbeatIntervalMs;
  }

  /**
   * Heartbeats every heartbeatIntervalMs since the last contact, until `stopHeartbeats`. With
   * `intervals` 2, only once the contact is two intervals old: the stream transport heartbeats
   * between batches itself, and this timer only keeps a long handler's session alive.
   */
  startHeartbeats(stillOwned: () => Assignment, onError: (error: unknown) => void, intervals = 1): void {
    this.#stillOwned = stillOwned;
    const tick = () => {
      const dueInMs = this.#lastContactMs + this.heartbeatIntervalMs * intervals - Date.now();
      if (dueInMs > 0) {
        this.#timer = setTimeout(tick, dueInMs);
        return;
      }
      this.heartbeat()
        .catch(onError)
        .finally(() => {
          if (this.#timer !== undefined) this.#timer = setTimeout(tick, this.heartbeatIntervalMs);
        });
    };
    this.#timer = setTimeout(tick, this.heartbeatIntervalMs);
  }

  stopHeartbeats(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Leaves the group: its partitions are reassigned at once. */
  async leave(): Promise<void> {
    this.stopHeartbeats();
    if (!this.joined) return;
    await this.#exclusive(async () => {
      const memberId = this.memberId!;
      this.memberId = undefined;
      try {
        await this.#transport.empty({ method: "DELETE", path: path("groups", this.#options.groupId, "members", memberId) });
      } catch (error) {
        // Already gone (expired): nothing to leave.
        if (!isTributaryError(error, "UNKNOWN_MEMBER_ID")) throw error;
      }
    });
  }

  #exclusive<T>(body: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    const run = this.#queue.then(body, body);
    this.#queue = run.catch(() => undefined);
    return run.finally(() => (this.#busy -= 1));
  }

  async #joinNow(signal?: AbortSignal): Promise<void> {
    const answer = await withRetries(
      () =>
        this.#transport.json<MemberAnswer & { memberId: string }>({
          method: "POST",
          path: path("groups", this.#options.groupId, "members"),
          json: {
            topics: this.#topics,
            sessionTimeoutMs: this.#options.sessionTimeoutMs,
            assignor: this.#options.assignor,
            autoOffsetReset: this.#autoOffsetReset,
            clientId: this.#options.clientId ?? "tributary-client",
          },
          signal,
        }),
      { policy: this.#policy, log: this.#log, signal },
    );
    this.memberId = answer.memberId;
    this.memberEpoch = 0;
    this.#apply(answer);
  }

  /** After FENCED_MEMBER_EPOCH: give up everything, heartbeat with epoch 0 under the same id. */
  async #rejoinNow(signal?: AbortSignal): Promise<void> {
    const answer = await withRetries(
      () =>
        this.#transport.json<MemberAnswer>({
          method: "POST",
          path: path("groups", this.#options.groupId, "members", this.memberId!, "heartbeat"),
          json: { memberEpoch: 0, ownedPartitions: [] },
          signal,
        }),
      { policy: this.#policy, log: this.#log, signal },
    );
    this.#apply(answer);
  }

  /** Handles fencing and expiry; true when the member is back in the group (its positions dropped). */
  async #recover(error: unknown, signal?: AbortSignal): Promise<boolean> {
    if (isTributaryError(error, "FENCED_MEMBER_EPOCH")) {
      this.#log.log("info", `member ${this.memberId} of group ${this.#options.groupId} was fenced (${error.message}); rejoining from the committed offsets`);
      this.#setAssignment([]);
      this.onLost();
      await this.#rejoinNow(signal).catch(async (rejoinError: unknown) => {
        if (!isTributaryError(rejoinError, "UNKNOWN_MEMBER_ID")) throw rejoinError;
        await this.#joinNow(signal);
      });
      return true;
    }
    if (isTributaryError(error, "UNKNOWN_MEMBER_ID")) {
      // Expired, or a server that restarted without it: join anew.
      this.#log.log("info", `member ${this.memberId} of group ${this.#options.groupId} is unknown to the server; joining anew from the committed offsets`);
      this.#setAssignment([]);
      this.onLost();
      await this.#joinNow(signal);
      return true;
    }
    return false;
  }

  #apply(answer: MemberAnswer): void {
    this.#lastContactMs = Date.now();
    this.memberEpoch = answer.memberEpoch;
    if (typeof answer.heartbeatIntervalMs === "number" && answer.heartbeatIntervalMs > 0) {
      this.heartbeatIntervalMs = answer.heartbeatIntervalMs;
    }
    this.#setAssignment(answer.assignment ?? []);
  }

  #setAssignment(assignment: Assignment): void {
    if (assignmentKey(assignment) === assignmentKey(this.assignment)) return;
    this.assignment = assignment;
    this.generation += 1;
    this.onAssignment(assignment);
  }
}

function assignmentKey(assignment: Assignment): string {
  return assignment
    .map(({ topic, partitions }) => `${topic}:${[...partitions].sort((a, b) => a - b).join(",")}`)
    .sort()
    .join("\n");
}

/** The union of two assignments, each topic's partitions sorted. */
export function mergeAssignments(first: Assignment, second: Assignment): Assignment {
  const merged = new Map<string, Set<number>>();
  for (const { topic, partitions } of [...first, ...second]) {
    const set = merged.get(topic) ?? new Set<number>();
    for (const partition of partitions) set.add(partition);
    merged.set(topic, set);
  }
  return [...merged].map(([topic, set]) => ({ topic, partitions: [...set].sort((a, b) => a - b) }));
}
