/**
 * Topic, group and token administration (API.md, Topics, Consumer groups and Tokens):
 * `admin.topics.create(...)`, `admin.groups.offsets("g")`, `admin.tokens.create(...)`. Reads
 * are retried on retriable errors; changes are not, since an unanswered change may have
 * happened (a retried create would then fail with TOPIC_ALREADY_EXISTS): the caller decides.
 */
import type { AdminContext } from "./admin-context.ts";
import { withRetries } from "./retry.ts";
import { Secret } from "./secret.ts";
import { ShareGroupsAdmin } from "./share-groups-admin.ts";
import { SubscriptionsAdmin } from "./subscriptions-admin.ts";
import { TransactionsAdmin } from "./transactions-admin.ts";
import { path } from "./transport.ts";
import type {
  CreatedToken,
  CreateTokenRequest,
  CreateTopicRequest,
  GroupDescription,
  CommittedPosition,
  GroupOffset,
  GroupSummary,
  OffsetDeletion,
  Position,
  ResetTarget,
  TokenInfo,
  Topic,
  TopicPartition,
  TopicSummary,
} from "./types.ts";

function read<T>(context: AdminContext, requestPath: string): Promise<T> {
  return withRetries(() => context.transport.json<T>({ method: "GET", path: requestPath }), { policy: context.policy, log: context.log });
}

export class TopicsAdmin {
  readonly #context: AdminContext;

  constructor(context: AdminContext) {
    this.#context = context;
  }

  /** With `validateOnly` (Kafka's): every check, nothing created; the topic as it would be (its topicId not kept). */
  async create(request: CreateTopicRequest, options: { validateOnly?: boolean } = {}): Promise<Topic> {
    const query = options.validateOnly ? { validateOnly: "true" } : undefined;
    const topic = await this.#context.transport.json<Topic>({ method: "POST", path: path("topics"), query, json: request });
    if (!options.validateOnly) this.#context.metadata.remember(topic);
    return topic;
  }

  /** Every topic, sorted by name, with its partition count. */
  async list(): Promise<TopicSummary[]> {
    return (await read<{ topics: TopicSummary[] }>(this.#context, path("topics"))).topics;
  }

  async describe(name: string): Promise<Topic> {
    const topic = await read<Topic>(this.#context, path("topics", name));
    this.#context.metadata.remember(topic);
    return topic;
  }

  /** Merged into the current configs; a null value restores the default. */
  /** With `validateOnly` (Kafka's): every check, nothing changed; the topic as it would be. */
  async alterConfigs(name: string, configs: Record<string, string | number | boolean | null>, options: { validateOnly?: boolean } = {}): Promise<Topic> {
    const query = options.validateOnly ? { validateOnly: "true" } : undefined;
    const topic = await this.#context.transport.json<Topic>({ method: "PATCH", path: path("topics", name, "configs"), query, json: { configs } });
    if (!options.validateOnly) this.#context.metadata.remember(topic);
    return topic;
  }

  /** Grows the topic to `count` partitions in all (never fewer). */
  async createPartitions(name: string, count: number): Promise<Topic> {
    const topic = await this.#context.transport.json<Topic>({ method: "POST", path: path("topics", name, "partitions"), json: { count } });
    this.#context.metadata.remember(topic);
    return topic;
  }

  /**
   * Deletes the records before `offset` in each partition (Kafka's deleteRecords): its log start
   * moves there; −1 is the high watermark. Answers each partition's new log start (its low watermark).
   */
  async deleteRecords(name: string, partitions: { partition: number; offset: number }[]): Promise<{ partition: number; lowWatermark: number }[]> {
    return Promise.all(
      partitions.map(async ({ partition, offset }) => {
        const requestPath = path("topics", name, "partitions", String(partition), "delete-records");
        const answer = await this.#context.transport.json<{ lowWatermark: number }>({ method: "POST", path: requestPath, json: { beforeOffset: offset } });
        return { partition, lowWatermark: answer.lowWatermark };
      }),
    );
  }

  async delete(name: string): Promise<void> {
    this.#context.metadata.invalidate(name);
    await this.#context.transport.empty({ method: "DELETE", path: path("topics", name) });
  }
}

export class GroupsAdmin {
  readonly #context: AdminContext;

  constructor(context: AdminContext) {
    this.#context = context;
  }

  /**
   * The groups the token may describe, sorted by name; `states` and `types` keep only those in
   * one of the states (Empty, Reconciling, Stable) or of one of the types (every Tributary group
   * is a `consumer` group), in any case, as Kafka's listGroups filters.
   */
  async list(filters: { states?: string[]; types?: string[] } = {}): Promise<GroupSummary[]> {
    const query = new URLSearchParams();
    if (filters.states?.length) query.set("states", filters.states.join(","));
    if (filters.types?.length) query.set("types", filters.types.join(","));
    const search = query.toString();
    return (await read<{ groups: GroupSummary[] }>(this.#context, search === "" ? path("groups") : `${path("groups")}?${search}`)).groups;
  }

  async describe(group: string): Promise<GroupDescription> {
    return read<GroupDescription>(this.#context, path("groups", group));
  }

  /** Every partition of the subscribed topics: committed offset, high watermark and lag (null where nothing is committed). */
  async offsets(group: string): Promise<GroupOffset[]> {
    return (await read<{ offsets: GroupOffset[] }>(this.#context, path("groups", group, "offsets"))).offsets;
  }

  /**
   * Moves an empty group's committed offsets of one topic, or of its `partitions` (NON_EMPTY_GROUP
   * while it has members); with `dryRun`, answers the plan and writes nothing.
   */
  async resetOffsets(group: string, request: { topic: string; to: ResetTarget; partitions?: number[]; dryRun?: boolean }): Promise<Position[]> {
    const answer = await this.#context.transport.json<{ offsets: Position[] }>({
      method: "POST",
      path: path("groups", group, "offsets", "reset"),
      json: request,
    });
    return answer.offsets;
  }

  /** Commits offsets (each with an optional metadata string) for an empty group (a member commits through its consumer). */
  async commitOffsets(group: string, offsets: CommittedPosition[]): Promise<void> {
    await this.#context.transport.empty({ method: "POST", path: path("groups", group, "offsets"), json: { offsets } });
  }

  /**
   * Deletes the group's committed offsets of these partitions (Kafka's OffsetDelete): each is
   * answered in order, refused on its own (GROUP_SUBSCRIBED_TO_TOPIC) while members subscribe
   * to its topic. GROUP_ID_NOT_FOUND for a group that does not exist.
   */
  async deleteOffsets(group: string, partitions: TopicPartition[]): Promise<OffsetDeletion[]> {
    const answer = await this.#context.transport.json<{ partitions: OffsetDeletion[] }>({ method: "POST", path: path("groups", group, "offsets", "delete"), json: { partitions } });
    return answer.partitions;
  }

  /** Deletes an empty group and its committed offsets. */
  async delete(group: string): Promise<void> {
    await this.#context.transport.empty({ method: "DELETE", path: path("groups", group) });
  }
}

/**
 * Scoped tokens (API.md, Tokens): only the admin token may create, list and revoke them
 * (a scoped token gets CLUSTER_AUTHORIZATION_FAILED). A created token's secret comes once, as
 * a `Secret` that never prints.
 */
export class TokensAdmin {
  readonly #context: AdminContext;

  constructor(context: AdminContext) {
    this.#context = context;
  }

  /** Creates a token with `rules`; its secret is `created.token.reveal()`, shown by the server this once. */
  async create(request: CreateTokenRequest): Promise<CreatedToken> {
    const { token, ...info } = await this.#context.transport.json<TokenInfo & { token: string }>({ method: "POST", path: path("tokens"), json: request });
    return { ...info, token: new Secret(token) };
  }

  /** Every token, without secrets. */
  async list(): Promise<TokenInfo[]> {
    return (await read<{ tokens: TokenInfo[] }>(this.#context, path("tokens"))).tokens;
  }

  /** Revokes a token by its id (NOT_FOUND if there is none); requests with it fail within seconds. */
  async revoke(id: string): Promise<void> {
    if (typeof id !== "string" || id === "") throw new TypeError("revoke: a token id is a non-empty string");
    await this.#context.transport.empty({ method: "DELETE", path: path("tokens", id) });
  }
}

export class Admin {
  readonly topics: TopicsAdmin;
  readonly groups: GroupsAdmin;
  readonly tokens: TokensAdmin;
  /** Share groups (share-groups-admin.ts). */
  readonly shareGroups: ShareGroupsAdmin;
  /** Push subscriptions (src/client/subscriptions-admin.ts). */
  readonly subscriptions: SubscriptionsAdmin;
  /** Transactions (transactions-admin.ts). */
  readonly transactions: TransactionsAdmin;

  constructor(context: AdminContext) {
    this.topics = new TopicsAdmin(context);
    this.groups = new GroupsAdmin(context);
    this.tokens = new TokensAdmin(context);
    this.shareGroups = new ShareGroupsAdmin(context);
    this.subscriptions = new SubscriptionsAdmin(context);
    this.transactions = new TransactionsAdmin(context);
  }
}
