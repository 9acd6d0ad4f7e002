import { DurableObject } from "cloudflare:workers";
import { TributaryError, toResult, unwrap, type Result } from "../errors.ts";
import { compareStrings } from "../group/assignment.ts";
import { GroupMembership, normalizeAssignment, PersistedContacts } from "../group/index.ts";
import type { Assignment, ClassicHeartbeatResponse, HeartbeatRequest, JoinRequest, JoinResponse, MemberResponse, MembershipDescription, MembershipState } from "../group/index.ts";
import { fetchWaitMsMax, membersPerGroupMax } from "../limits.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type {
  ClassicHeartbeatRequest,
  ClassicJoinReply,
  ClassicJoinRequest,
  ClassicLeaveReply,
  ClassicLeaveRequest,
  ClassicSyncReply,
  ClassicSyncRequest,
  ClassicWait,
  CommitRequest,
  GroupOffset,
  GroupTransactionMarker,
  OffsetDeleteReply,
  OffsetDeleteRequest,
  PartitionStart,
  PollStart,
  PollStartRequest,
  Position,
  ResetRequest,
  TransactionalCommitRequest,
} from "../contracts/group-coordinator-api.ts";
import { ChangeWaiters, clampWait, settledAnswer } from "./group-change-waiters.ts";
import { deleteGroupOffsets } from "./group-offset-deletion.ts";
import { GroupIndexSync, type IndexSummary } from "./group-index-sync.ts";
import { GroupOffsetsStore, groupOffsetsLeaderEpochMigration, groupOffsetsMetadataMigration, groupOffsetsMigration } from "./group-offsets-store.ts";
import { GroupStateStore, groupClassicStateMigration, groupStateMigration } from "./group-state-store.ts";
import { committedRows, DeletedTopicIds, invalid, leaderEpochOf, partitionStarts, requireMetadataFits, requirePartition } from "./group-coordinator-checks.ts";
import { GroupTopicCache, topicsMetaOf } from "./group-topic-cache.ts";
import { GroupTransactionalOffsets, groupTransactionalOffsetsMigration } from "./group-transactional-offsets.ts";
import { applyMigrations } from "./schema.ts";
import { controllerStub } from "../contracts/stubs.ts";
import { countBilled } from "../contracts/billing-meter.ts";
import { CountedSql, rowCountingEnabled } from "./counted-sql.ts";

const migrations = [`${groupStateMigration};\n${groupOffsetsMigration};`, groupOffsetsMetadataMigration, groupClassicStateMigration, groupTransactionalOffsetsMigration, groupOffsetsLeaderEpochMigration];

/**
 * One consumer group's coordinator (ARCHITECTURE.md decisions 7 and 19): a thin adapter over the
 * pure GroupMembership (src/group/group-membership.ts: server-side assignment for HTTP members,
 * Kafka's classic protocol while only classic members are in the group). It persists the
 * group's state as one JSON row when its revision moves, stores committed offsets keyed by
 * topicId, expires silent members with its alarm, wakes waiting polls and held classic
 * requests on every change, and keeps the controller's group index current. It never relays
 * records.
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
  #txnOffsets!: GroupTransactionalOffsets;
  #index!: GroupIndexSync;
  readonly #topics: GroupTopicCache;
  readonly #waiters = new ChangeWaiters(membersPerGroupMax);
  readonly #deletedTopicIds = new DeletedTopicIds();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#topics = new GroupTopicCache((name) => controllerStub(env).describeTopic(name));
    void ctx.blockConcurrencyWhile(async () => {
      const sql = new CountedSql(ctx.storage.sql, rowCountingEnabled(env)).storage; // rows counted for the benchmark's bill (src/contracts/billing-meter.ts)
      applyMigrations(sql, migrations);
      this.#state = new GroupStateStore(sql);
      this.#offsets = new GroupOffsetsStore(sql);
      this.#txnOffsets = new GroupTransactionalOffsets(sql);
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
      if (request.classic === true) return this.#group.server.classicHeartbeat(memberId, request.memberEpoch, topicsMetaOf(meta), Date.now());
      const { memberEpoch, ownedPartitions } = request;
      return this.#group.server.heartbeat(memberId, { memberEpoch, ownedPartitions, topics: request.topics }, topicsMetaOf(meta), Date.now());
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
      if (commit) this.#group.server.checkCommit(memberId, request.memberEpoch, positions);
      const ownedPartitions =
        positions === undefined ? undefined : normalizeAssignment(positions.map(({ topic, partition }) => ({ topic, partitions: [partition] })));
      const response = this.#group.server.heartbeat(memberId, { memberEpoch: request.memberEpoch, ownedPartitions }, topicsMetaOf(meta), nowMs);
      if (commit) this.#writeOffsets(positions, meta, nowMs);
      const sessionTimeoutMs = this.#group.server.member(memberId)?.sessionTimeoutMs ?? 0;
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
        const member = this.#group.server.member(memberId);
        return member === undefined || member.memberEpoch !== memberEpoch || this.#group.server.needsReconciliation(memberId);
      };
      return this.#waiters.wait(changed, Math.max(0, Math.min(waitMs, fetchWaitMsMax)));
    });
  }

  /** The member leaves; its partitions are free at once. `forNow`: a static member keeps its place (static-members.ts). */
  async leave(group: string, memberId: string, options: { forNow?: boolean } = {}): Promise<Result<void>> {
    return this.#change(group, async () => (options.forNow === true ? this.#group.server.leaveForNow(memberId) : this.#group.leave(memberId, Date.now())));
  }

  /**
   * A classic member's JoinGroup (docs/api.md, Classic members). Kafka holds it until the
   * rebalance completes; here it is held at most `waitMs`, then answered "pending" and the
   * caller sends it again (with the member id the answer gives). A held JoinGroup whose
   * rebalance completed and another began before it was answered joins the new one.
   */
  async classicJoin(group: string, call: { request: ClassicJoinRequest } & ClassicWait): Promise<Result<ClassicJoinReply>> {
    return toResult(async () => {
      const deadline = Date.now() + clampWait(call.waitMs);
      let request = call.request;
      for (;;) {
        const outcome = unwrap(
          await this.#change(group, async () => {
            const meta = await this.#meta([...this.#group.subscribedTopics(), ...this.#group.topicsOf(request)]);
            const joined = this.#group.classicJoin(request, topicsMetaOf(meta), Date.now());
            this.#exists = true;
            return joined;
          }),
        );
        if (outcome.kind === "joined") return { outcome: "joined", ...outcome.answer };
        if (outcome.kind === "member-id-required") return { outcome: "member-id-required", memberId: outcome.memberId };
        request = { ...request, memberId: outcome.memberId };
        const { groupInstanceId } = request;
        const settled = () => settledAnswer(() => this.#group.classicJoinAnswer(outcome.memberId, groupInstanceId));
        if (!(await this.#waiters.wait(() => settled() !== "waiting", Math.max(0, deadline - Date.now())))) return { outcome: "pending", memberId: outcome.memberId };
        const answer = this.#group.classicJoinAnswer(outcome.memberId, groupInstanceId);
        if (answer !== "waiting" && answer !== "rejoin") return { outcome: "joined", ...answer };
      }
    });
  }

  /** A classic member's SyncGroup; a follower's is held for the leader's assignments at most `waitMs`, then answered "pending". */
  async classicSync(group: string, call: { request: ClassicSyncRequest } & ClassicWait): Promise<Result<ClassicSyncReply>> {
    return toResult(async () => {
      const { request } = call;
      const synced = unwrap(
        await this.#change(group, async () => {
          const meta = await this.#meta(this.#group.path === "server" ? this.#group.subscribedTopics() : []);
          return this.#group.classicSync(request, topicsMetaOf(meta), Date.now());
        }),
      );
      if (synced.kind === "synced") return { outcome: "synced", ...synced.answer };
      const answer = () => this.#group.classicSyncAnswer(request.memberId, request.groupInstanceId, request.generationId);
      if (!(await this.#waiters.wait(() => settledAnswer(answer) !== "waiting", clampWait(call.waitMs)))) return { outcome: "pending" };
      const settled = answer();
      return settled === "waiting" ? { outcome: "pending" } : { outcome: "synced", ...settled };
    });
  }

  /** A classic member's Heartbeat at its generation: `rebalance` tells it to rejoin. */
  async classicHeartbeat(group: string, request: ClassicHeartbeatRequest): Promise<Result<{ rebalance: boolean }>> {
    return this.#change(group, async () => {
      const meta = await this.#meta(this.#group.path === "server" ? this.#group.subscribedTopics() : []);
      return this.#group.classicHeartbeat(request.memberId, request.groupInstanceId, request.generationId, topicsMetaOf(meta), Date.now());
    });
  }

  /** A classic LeaveGroup of one or more members; each is answered on its own. */
  async classicLeave(group: string, request: ClassicLeaveRequest): Promise<Result<ClassicLeaveReply>> {
    return this.#change(group, async () => {
      const results = this.#group.classicLeave(request.members, Date.now());
      return { members: results.map(({ memberId, groupInstanceId, error }) => ({ memberId, groupInstanceId, error: error === null ? null : error.toValue() })) };
    });
  }

  /**
   * Commits offsets: by a member (fenced by its epoch, for partitions it owns), or without a
   * member while the group is empty (admin tools; it creates the group).
   */
  async commit(group: string, request: CommitRequest): Promise<Result<void>> {
    return this.#change(group, async () => {
      const meta = await this.#checkCommit(request, false);
      this.#writeOffsets(request.offsets, meta, Date.now());
      this.#exists = true;
    });
  }

  /** Offsets committed inside a transaction (issue 28): pending until its marker; fenced by member (KIP-447) and producer epoch. */
  async commitTransactional(group: string, request: TransactionalCommitRequest): Promise<Result<void>> {
    return this.#change(group, async () => {
      await this.#checkCommit(request, true);
      this.#txnOffsets.stage({ ...request, offsets: request.offsets.map((position) => ({ ...position, metadata: position.metadata ?? "" })) });
      this.#exists = true;
    });
  }

  /** The transaction coordinator's marker: a commit writes the producer's pending offsets as committed. */
  async transactionMarker(group: string, marker: GroupTransactionMarker): Promise<Result<void>> {
    return this.#change(group, async () => {
      const offsets = this.#txnOffsets.mark(marker);
      if (offsets.length > 0) this.#writeOffsets(offsets, await this.#meta(offsets.map((offset) => offset.topic)), Date.now());
    });
  }

  /** A commit's member checks (a member's epoch, else an empty group unless `transactional`), partitions and metadata. */
  async #checkCommit(request: CommitRequest, transactional: boolean): Promise<Map<string, TopicMetadata>> {
    const meta = await this.#meta(request.offsets.map((position) => position.topic));
    if (request.memberId !== undefined) {
      if (request.memberEpoch === undefined) throw invalid("memberEpoch is required with memberId");
      if (request.classic === true) this.#group.checkClassicCommit(request.memberId, request.groupInstanceId ?? null, request.memberEpoch, request.offsets);
      else this.#group.server.checkCommit(request.memberId, request.memberEpoch, request.offsets);
    } else {
      if (request.classic !== undefined) throw invalid("classic needs a memberId");
      if (request.groupInstanceId != null) throw invalid("groupInstanceId needs a memberId");
      if (request.memberEpoch !== undefined) throw invalid("memberEpoch needs a memberId");
      if (!transactional) this.#requireEmpty("commit offsets without a member");
    }
    for (const { topic, partition } of request.offsets) requirePartition(meta, topic, partition);
    requireMetadataFits(request.offsets);
    return meta;
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
  async offsets(group: string, options: { requireStable?: boolean } = {}): Promise<Result<GroupOffset[]>> {
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
          answer.push({ topic: name, topicId: topic.topicId, partition, offset: entry?.offset ?? null, metadata: entry?.metadata ?? null, ...leaderEpochOf(entry) });
        }
      }
      if (options.requireStable === true) this.#txnOffsets.requireStable();
      return answer;
    });
  }

  async describe(group: string): Promise<Result<MembershipDescription & { group: string }>> {
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
      // Its marker would write the offsets into the deleted group: wait for the transaction's end.
      if (this.#txnOffsets.holdsAny) throw new TributaryError("NON_EMPTY_GROUP", "cannot delete the group: a transaction holds offsets of it; retry after it ends");
      this.#offsets.deleteAll();
      this.#group = newGroup();
      this.#persistedRevision = this.#group.revision;
      this.#exists = false;
    });
  }

  /** Kafka's OffsetDelete: the partitions' offsets go, unless the members subscribe to their topic (group-offset-deletion.ts). */
  async deleteOffsets(group: string, request: OffsetDeleteRequest): Promise<Result<OffsetDeleteReply>> {
    const target = { exists: () => this.#exists, membership: () => this.#group, meta: (names: string[]) => this.#meta(names), offsets: this.#offsets, txnOffsets: this.#txnOffsets };
    return this.#change(group, () => deleteGroupOffsets(group, request, { ...target, transaction: (body) => this.ctx.storage.transactionSync(body) }));
  }

  /**
   * The topic was deleted (called by the controller): its offsets go, and its partitions leave
   * every assignment; members stay subscribed, so a topic created later under the name is
   * read from its start. Idempotent.
   */
  async deleteTopicOffsets(group: string, topicId: string, topicName: string): Promise<Result<void>> {
    return this.#change(group, async () => {
      this.#deletedTopicIds.add(topicId);
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
    const state = this.#group.toState().server.topics.find((topic) => topic.topic === name);
    if (state === undefined || state.partitions === 0) return;
    this.#group.server.removeTopic(name);
    this.#persist();
    this.#waiters.wake();
  }

  /** Writes positions as committed; a position's metadata string is kept ("" when it has none, as a poll's), and its leader epoch. */
  #writeOffsets(positions: readonly (Position & { metadata?: string; leaderEpoch?: number })[], meta: ReadonlyMap<string, TopicMetadata>, nowMs: number): void {
    this.#offsets.write(committedRows(positions, meta, this.#deletedTopicIds), nowMs);
  }

  #starts(memberId: string, assignment: Assignment, meta: ReadonlyMap<string, TopicMetadata>): PartitionStart[] {
    return partitionStarts(assignment, meta, (topicId) => this.#offsets.committed(topicId), (topic, partition) => this.#group.server.offsetResetFor(memberId, topic, partition));
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
    const state: Partial<MembershipState> = { server: stored.state.server, classic: stored.state.classic ?? undefined };
    this.#contacts.load({ members: [...(state.server?.members ?? []), ...(state.classic?.members ?? [])] }, Date.now());
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
    const state = this.#exists ? this.#group.toState() : null;
    if (state !== null) this.#contacts.toRow({ members: [...state.server.members, ...state.classic.members] });
    // An empty classic group keeps its generation (Kafka's counts on); one that never had a member is not written.
    const classic = state === null || (state.classic.members.length === 0 && state.classic.generationId === 0 && state.classic.pendingMembers.length === 0) ? null : state.classic;
    this.#state.save({ name: this.#name ?? "", state: state === null ? null : { server: state.server, classic }, indexed: this.#index.acknowledged });
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

function newGroup(state?: Partial<MembershipState>): GroupMembership {
  return new GroupMembership({ generateMemberId: () => crypto.randomUUID() }, state);
}
