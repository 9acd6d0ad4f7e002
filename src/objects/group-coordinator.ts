import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, type Result } from "../errors.ts";
import { compareStrings } from "../group/assignment.ts";
import { ConsumerGroup, normalizeAssignment, PersistedContacts } from "../group/index.ts";
import type { Assignment, ClassicHeartbeatResponse, GroupDescription, GroupState, HeartbeatRequest, JoinRequest, JoinResponse, MemberResponse } from "../group/index.ts";
import { fetchWaitMsMax, membersPerGroupMax, offsetMetadataLengthMax } from "../limits.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type {
  CommitRequest,
  GroupOffset,
  PartitionStart,
  PollStart,
  PollStartRequest,
  Position,
  ResetRequest,
} from "../contracts/group-coordinator-api.ts";
import { ChangeWaiters } from "./group-change-waiters.ts";
import { GroupIndexSync, type IndexSummary } from "./group-index-sync.ts";
import { GroupOffsetsStore, groupOffsetsMetadataMigration, groupOffsetsMigration, type CommittedOffset } from "./group-offsets-store.ts";
import { GroupStateStore, groupStateMigration } from "./group-state-store.ts";
import { GroupTopicCache, topicsMetaOf } from "./group-topic-cache.ts";
import { applyMigrations } from "./schema.ts";
import { controllerStub } from "../contracts/stubs.ts";
import { countBilled } from "../contracts/billing-meter.ts";
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";

const migrations = [`${groupStateMigration};\n${groupOffsetsMigration};`, groupOffsetsMetadataMigration];

/** Topic ids whose deletion this object has seen; a commit racing a deletion must not revive them. */
const deletedTopicIdsMax = 1_000;

/**
 * One consumer group's coordinator (ARCHITECTURE.md decision 7): a thin adapter over the
 * pure ConsumerGroup (src/group/group.ts says how an object drives it). It persists the
 * group's state as one JSON row when its revision moves, stores committed offsets keyed by
 * topicId, expires silent members with its alarm, wakes waiting polls on every change, and
 * keeps the controller's group index current. It never relays records.
 *
 * Contact times are not written per heartbeat but at least once per quarter session
 * (src/group/member-contacts.ts): however often the object restarts, a member that stopped
 * heartbeating is removed at most a quarter session late, and never early.
 *
 * A group exists from its first join or commit until it is deleted; `group_state.state` is
 * null while it does not, and the row stays only until the index has forgotten it.
 */
export class GroupCoordinator extends DurableObject<Env> {
  #name: string | undefined;
  #exists = false;
  #group = newGroup();
  #persistedRevision = 0;
  #persistedExists = false;
  #armedAlarmMs: number | null = null;
  readonly #contacts = new PersistedContacts();
  #state!: GroupStateStore;
  #offsets!: GroupOffsetsStore;
  #index!: GroupIndexSync;
  readonly #topics: GroupTopicCache;
  readonly #waiters = new ChangeWaiters(membersPerGroupMax);
  readonly #deletedTopicIds = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#topics = new GroupTopicCache((name) => controllerStub(env).describeTopic(name));
    void ctx.blockConcurrencyWhile(async () => {
      const sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env)).storage; // rows counted for the benchmark's bill (src/contracts/billing-meter.ts)
      applyMigrations(sql, migrations);
      this.#state = new GroupStateStore(sql);
      this.#offsets = new GroupOffsetsStore(sql);
      const stored = this.#load();
      this.#index = new GroupIndexSync(() => controllerStub(env), stored?.indexed ?? null, () => this.#saveRow());
      this.#armedAlarmMs = await ctx.storage.getAlarm();
      if (!this.#index.inSync(this.#indexSummary())) this.#index.retryAtMs = Date.now();
      await this.#arm();
    });
  }

  /** A new member (API.md: join); the group is created by its first member. */
  async join(group: string, request: JoinRequest): Promise<Result<JoinResponse>> {
    return this.#change(group, async () => {
      const topics = Array.isArray(request?.topics) ? request.topics.filter((topic) => typeof topic === "string") : [];
      const meta = await this.#meta([...this.#group.subscribedTopics(), ...topics]);
      const response = this.#group.join(request, topicsMetaOf(meta), Date.now());
      this.#exists = true;
      return response;
    });
  }

  async heartbeat(group: string, memberId: string, request: HeartbeatRequest): Promise<Result<MemberResponse | ClassicHeartbeatResponse>> {
    return this.#change(group, async () => {
      const topics = Array.isArray(request?.topics) ? request.topics.filter((topic) => typeof topic === "string") : [];
      const meta = await this.#meta([...this.#group.subscribedTopics(), ...topics]);
      if (request.classic === true) return this.#group.classicHeartbeat(memberId, request.memberEpoch, topicsMetaOf(meta), Date.now());
      const { memberEpoch, ownedPartitions } = request;
      return this.#group.heartbeat(memberId, { memberEpoch, ownedPartitions, topics: request.topics }, topicsMetaOf(meta), Date.now());
    });
  }

  /**
   * The coordinator's part of a poll: commits the positions the member sends back (checked
   * before the heartbeat, under the epoch they were earned in), heartbeats with them as the
   * partitions the member owns, and answers with where to start each assigned partition.
   * `memberEpoch` 0 rejoins: the member held nothing, so its positions are neither
   * committed nor taken as owned.
   */
  async pollStart(group: string, memberId: string, request: PollStartRequest): Promise<Result<PollStart>> {
    return this.#change(group, async () => {
      const meta = await this.#meta(this.#group.subscribedTopics());
      const nowMs = Date.now();
      const positions = request.memberEpoch === 0 ? undefined : request.positions;
      const commit = request.autoCommit && positions !== undefined && positions.length > 0;
      if (commit) this.#group.checkCommit(memberId, request.memberEpoch, positions);
      const ownedPartitions =
        positions === undefined ? undefined : normalizeAssignment(positions.map(({ topic, partition }) => ({ topic, partitions: [partition] })));
      const response = this.#group.heartbeat(memberId, { memberEpoch: request.memberEpoch, ownedPartitions }, topicsMetaOf(meta), nowMs);
      if (commit) this.#writeOffsets(positions, meta, nowMs);
      const sessionTimeoutMs = this.#group.member(memberId)?.sessionTimeoutMs ?? 0;
      return { ...response, sessionTimeoutMs, starts: this.#starts(memberId, response.assignment, meta) };
    });
  }

  /**
   * Resolves true as soon as the member's next heartbeat would change its assignment (or the
   * member is gone, or has moved past `memberEpoch`): a waiting poll then returns early.
   * False after `waitMs`.
   */
  async waitForChange(group: string, memberId: string, memberEpoch: number, waitMs: number): Promise<Result<boolean>> {
    return toResult(() => {
      this.#admitName(group);
      const changed = () => {
        const member = this.#group.member(memberId);
        return member === undefined || member.memberEpoch !== memberEpoch || this.#group.needsReconciliation(memberId);
      };
      return this.#waiters.wait(changed, Math.max(0, Math.min(waitMs, fetchWaitMsMax)));
    });
  }

  /** The member leaves; its partitions are free at once. */
  async leave(group: string, memberId: string): Promise<Result<void>> {
    return this.#change(group, async () => this.#group.leave(memberId));
  }

  /**
   * Commits offsets: by a member (fenced by its epoch, for partitions it owns), or without a
   * member while the group is empty (admin tools; it creates the group).
   */
  async commit(group: string, request: CommitRequest): Promise<Result<void>> {
    return this.#change(group, async () => {
      const meta = await this.#meta(request.offsets.map((position) => position.topic));
      if (request.memberId !== undefined) {
        if (request.memberEpoch === undefined) throw invalid("memberEpoch is required with memberId");
        this.#group.checkCommit(request.memberId, request.memberEpoch, request.offsets, { classic: request.classic });
      } else {
        if (request.classic !== undefined) throw invalid("classic needs a memberId");
        if (request.memberEpoch !== undefined) throw invalid("memberEpoch needs a memberId");
        this.#requireEmpty("commit offsets without a member");
      }
      for (const { topic, partition } of request.offsets) requirePartition(meta, topic, partition);
      requireMetadataFits(request.offsets);
      this.#writeOffsets(request.offsets, meta, Date.now());
      this.#exists = true;
    });
  }

  /** Stores offsets the router resolved for every partition of a topic; only while the group is empty. */
  async resetOffsets(group: string, request: ResetRequest): Promise<Result<Position[]>> {
    return this.#change(group, async () => {
      let meta = await this.#meta([request.topic]);
      if (meta.get(request.topic)?.topicId !== request.topicId) meta = await this.#meta([request.topic], { refresh: true });
      this.#requireEmpty("reset offsets");
      const topic = meta.get(request.topic);
      if (topic === undefined || topic.topicId !== request.topicId) {
        throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${request.topic} does not exist`);
      }
      const positions = request.offsets.map(({ partition, offset }) => ({ topic: request.topic, partition, offset }));
      for (const { partition } of positions) requirePartition(meta, request.topic, partition);
      this.#writeOffsets(positions, meta, Date.now());
      this.#exists = true;
      return positions;
    });
  }

  /**
   * Every partition of the subscribed topics and of the topics with commits, with the
   * committed offset or null. Commits under a topicId the topic no longer has are left out.
   */
  async offsets(group: string): Promise<Result<GroupOffset[]>> {
    return toResult(async () => {
      this.#admitName(group);
      this.#requireExists();
      const committedTopics = this.#offsets.topics();
      const names = [...new Set([...this.#group.subscribedTopics(), ...committedTopics.map(({ topic }) => topic)])];
      const meta = await this.#meta(names);
      this.#requireExists();
      const answer: GroupOffset[] = [];
      for (const name of names.sort(compareStrings)) {
        const topic = meta.get(name);
        if (topic === undefined) continue;
        const committed = this.#offsets.committed(topic.topicId);
        for (const { partition } of topic.partitions) {
          const entry = committed.get(partition);
          answer.push({ topic: name, topicId: topic.topicId, partition, offset: entry?.offset ?? null, metadata: entry?.metadata ?? null });
        }
      }
      return answer;
    });
  }

  async describe(group: string): Promise<Result<GroupDescription & { group: string }>> {
    return toResult(() => {
      this.#admitName(group);
      this.#requireExists();
      return { group, ...this.#contacts.describe(this.#group.describe()) };
    });
  }

  /** Deletes an empty group: its offsets and state; it leaves the index. */
  async deleteGroup(group: string): Promise<Result<void>> {
    return this.#change(group, async () => {
      this.#requireExists();
      this.#requireEmpty("delete the group");
      this.#offsets.deleteAll();
      this.#group = newGroup();
      this.#persistedRevision = this.#group.revision;
      this.#exists = false;
    });
  }

  /**
   * The topic was deleted (called by the controller): its offsets go, and its partitions leave
   * every assignment; members stay subscribed, so a topic created later under the name is
   * read from its start. Idempotent.
   */
  async deleteTopicOffsets(group: string, topicId: string, topicName: string): Promise<Result<void>> {
    return this.#change(group, async () => {
      this.#deletedTopicIds.add(topicId);
      if (this.#deletedTopicIds.size > deletedTopicIdsMax) {
        const oldest = this.#deletedTopicIds.values().next();
        if (!oldest.done) this.#deletedTopicIds.delete(oldest.value);
      }
      this.#offsets.deleteTopic(topicId);
      const cached = this.#topics.peek(topicName);
      if (cached === undefined || cached.topicId === topicId) {
        this.#topics.forget(topicName);
        this.#removeTopic(topicName);
      }
    });
  }

  /** Expires silent members; keeps the index current; re-arms. Catches its own errors. */
  override async alarm(): Promise<void> {
    countBilled("alarms");
    this.#armedAlarmMs = null;
    try {
      this.#group.expire(Date.now());
      this.#persist();
      this.#waiters.wake();
      await this.#index.sync(this.#name, () => this.#indexSummary());
    } catch (error) {
      console.error("group coordinator alarm failed", error);
    }
    try {
      await this.#arm();
    } catch (error) {
      console.error("group coordinator could not re-arm its alarm", error);
    }
  }

  /**
   * Runs a request that may change the group: `body` awaits what it needs and then checks and
   * changes everything synchronously (a thrown TributaryError has changed nothing); then the
   * state is persisted, waiting polls woken, the index updated and the alarm re-armed.
   */
  async #change<T>(group: string, body: () => Promise<T>): Promise<Result<T>> {
    return toResult(async () => {
      this.#admitName(group);
      let result: T;
      try {
        result = await body();
      } finally {
        this.#persist();
        this.#waiters.wake();
      }
      await this.#index.sync(this.#name, () => this.#indexSummary());
      await this.#arm();
      return result;
    });
  }

  /** Metadata of the named topics; a subscribed topic the controller no longer knows leaves the assignments. */
  async #meta(names: Iterable<string>, options: { refresh?: boolean } = {}): Promise<Map<string, TopicMetadata>> {
    const wanted = [...new Set(names)];
    const meta = await this.#topics.get(wanted, options);
    const subscribed = new Set(this.#group.subscribedTopics());
    for (const name of wanted) if (!meta.has(name) && subscribed.has(name)) this.#removeTopic(name);
    return meta;
  }

  #removeTopic(name: string): void {
    const state = this.#group.toState().topics.find((topic) => topic.topic === name);
    if (state === undefined || state.partitions === 0) return;
    this.#group.removeTopic(name);
    this.#persist();
    this.#waiters.wake();
  }

  /** Writes positions as committed; a position's metadata string is kept ("" when it has none, as a poll's). */
  #writeOffsets(positions: readonly (Position & { metadata?: string })[], meta: ReadonlyMap<string, TopicMetadata>, nowMs: number): void {
    const rows: CommittedOffset[] = [];
    for (const { topic, partition, offset, metadata } of positions) {
      const topicId = meta.get(topic)?.topicId;
      if (topicId === undefined || this.#deletedTopicIds.has(topicId)) continue;
      rows.push({ topicId, topic, partition, offset, metadata: metadata ?? "" });
    }
    this.#offsets.write(rows, nowMs);
  }

  #starts(memberId: string, assignment: Assignment, meta: ReadonlyMap<string, TopicMetadata>): PartitionStart[] {
    const starts: PartitionStart[] = [];
    for (const { topic, partitions } of assignment) {
      const topicId = meta.get(topic)?.topicId;
      if (topicId === undefined) continue;
      const committed = this.#offsets.committed(topicId);
      for (const partition of partitions) {
        const committedOffset = committed.get(partition)?.offset ?? null;
        starts.push({ topic, topicId, partition, committedOffset, reset: this.#group.offsetResetFor(memberId, topic, partition) });
      }
    }
    return starts;
  }

  #admitName(group: string): void {
    if (typeof group !== "string" || group.length === 0) throw invalid("a group name is a non-empty string");
    if (this.#name === undefined) this.#name = group;
    else if (this.#name !== group) throw new Error(`the coordinator of group ${this.#name} was called for ${group}`);
  }

  #requireExists(): void {
    if (!this.#exists) throw new TributaryError("GROUP_ID_NOT_FOUND", `group ${this.#name ?? ""} does not exist`);
  }

  #requireEmpty(what: string): void {
    if (!this.#group.isEmpty()) {
      throw new TributaryError("NON_EMPTY_GROUP", `cannot ${what}: group ${this.#name ?? ""} has members`);
    }
  }

  #load() {
    const stored = this.#state.load();
    if (!stored) return undefined;
    this.#name = stored.name;
    if (stored.state === null) return stored;
    const state: GroupState = stored.state;
    this.#contacts.load(state, Date.now());
    this.#group = newGroup(state);
    this.#exists = true;
    this.#persistedExists = true;
    this.#persistedRevision = this.#group.revision;
    return stored;
  }

  /** Writes the state row when the revision moved, the group came or went, or a contact time is due. */
  #persist(): void {
    const unchanged = this.#exists === this.#persistedExists && this.#group.revision === this.#persistedRevision;
    if (unchanged && !this.#contacts.due(this.#group.contacts())) return;
    this.#saveRow();
  }

  #saveRow(): void {
    this.#state.save({
      name: this.#name ?? "",
      state: this.#contacts.toRow(this.#exists ? this.#group.toState() : null),
      indexed: this.#index.acknowledged,
    });
    this.#persistedExists = this.#exists;
    this.#persistedRevision = this.#group.revision;
  }

  #indexSummary(): IndexSummary | null {
    if (!this.#exists) return null;
    const { state, members } = this.#group.describe();
    return { state, members: members.length };
  }

  /** Arms the alarm for the next member deadline or index retry, unless it is armed earlier already. */
  async #arm(): Promise<void> {
    const deadlines = [this.#group.nextDeadlineMs(), this.#index.retryAtMs].filter((at): at is number => at !== null);
    if (deadlines.length === 0) return;
    const at = Math.min(...deadlines);
    if (this.#armedAlarmMs !== null && this.#armedAlarmMs <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#armedAlarmMs = at;
  }
}

function newGroup(state?: GroupState): ConsumerGroup {
  return new ConsumerGroup({ generateMemberId: () => crypto.randomUUID() }, state);
}

function requirePartition(meta: ReadonlyMap<string, TopicMetadata>, topic: string, partition: number): void {
  const partitions = meta.get(topic)?.partitions.length;
  if (partitions === undefined) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic} does not exist`);
  if (partition >= partitions) {
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${topic} has no partition ${partition}`);
  }
}

/** Kafka's OffsetCommit refuses a metadata string past offset.metadata.max.bytes; over HTTP nothing of the request is written. */
function requireMetadataFits(offsets: readonly { topic: string; partition: number; metadata?: string }[]): void {
  const tooLarge = offsets.filter(({ metadata }) => metadata !== undefined && metadata.length > offsetMetadataLengthMax);
  if (tooLarge.length === 0) return;
  const partitions = tooLarge.map(({ topic, partition }) => ({ topic, partition }));
  throw new TributaryError("OFFSET_METADATA_TOO_LARGE", `a commit's metadata is at most ${offsetMetadataLengthMax} characters`, { partitions, metadataMax: offsetMetadataLengthMax });
}

function invalid(message: string): TributaryError {
  return new TributaryError("INVALID_REQUEST", message);
}
