/**
 * Share-group administration (docs/api.md, "Share groups"): `admin().shareGroups.list()`,
 * `.describe(g)`, `.alterConfigs(g, configs)`, `.resetOffsets(g, { topic, to })`, `.delete(g)`.
 * As the rest of admin.ts: reads are retried on retriable errors, changes are not (an
 * unanswered change may have happened: the caller decides).
 */
import type { ClientLog } from "./logger.ts";
import { withRetries, type RetryPolicy } from "./retry.ts";
import type { ShareGroupConfigs, ShareGroupDescription, ShareGroupSummary, ShareResetRequest } from "./share-types.ts";
import { path, type Transport } from "./transport.ts";
import type { Position } from "./types.ts";

export interface ShareGroupsAdminContext {
  transport: Transport;
  policy: RetryPolicy;
  log: ClientLog;
}

export class ShareGroupsAdmin {
  readonly #context: ShareGroupsAdminContext;

  constructor(context: ShareGroupsAdminContext) {
    this.#context = context;
  }

  #read<T>(requestPath: string): Promise<T> {
    return withRetries(() => this.#context.transport.json<T>({ method: "GET", path: requestPath }), { policy: this.#context.policy, log: this.#context.log });
  }

  async list(): Promise<ShareGroupSummary[]> {
    return (await this.#read<{ groups: ShareGroupSummary[] }>(path("share-groups"))).groups;
  }

  /** The group's configs and, per partition it has fetched from, its window: start and end offsets, available, acquired, archived. */
  async describe(group: string): Promise<ShareGroupDescription> {
    return this.#read<ShareGroupDescription>(path("share-groups", group));
  }

  /**
   * Merged into the group's configs (string values, as topic configs; a null value restores the
   * default): `record.lock.duration.ms`, `delivery.count.limit`, `auto.offset.reset`,
   * `dead.letter.topic`, `share.isolation.level` (`read_committed` by default, or
   * `read_uncommitted`). Creates the group when it has none yet.
   */
  async alterConfigs(group: string, configs: Record<string, string | number | null>): Promise<ShareGroupConfigs> {
    return this.#context.transport.json<ShareGroupConfigs>({ method: "PATCH", path: path("share-groups", group, "configs"), json: { configs } });
  }

  /**
   * Moves where the group starts in a topic's partitions (all, or `partitions`), as for consumer
   * groups; NON_EMPTY_GROUP while records are acquired. With `dryRun`, answers the plan and writes nothing.
   */
  async resetOffsets(group: string, request: ShareResetRequest): Promise<Position[]> {
    const answer = await this.#context.transport.json<{ offsets: Position[] }>({ method: "POST", path: path("share-groups", group, "offsets", "reset"), json: request });
    return answer.offsets;
  }

  /** Deletes the group and its state; NON_EMPTY_GROUP while records are acquired. */
  async delete(group: string): Promise<void> {
    await this.#context.transport.empty({ method: "DELETE", path: path("share-groups", group) });
  }
}
