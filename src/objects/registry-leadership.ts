import { TributaryError, unwrap } from "../errors.ts";
import { shareStateSyncRetryMs } from "../limits.ts";
import type { RegistryChange, RegistryRows } from "../registry/registry-changes.ts";
import {
  commitOutcome,
  compareStamps,
  newestSnapshot,
  otherRegions,
  type ChangeAnswer,
  type PushOutcome,
  type StateReplica,
  type StateStamp,
} from "../share/share-state-replication.ts";
import { registryTopic, type RegistryKey } from "../contracts/schema-registry-api.ts";
import { controllerStub, legacySchemaRegistryStub, schemaRegistryReplicaStub } from "../contracts/stubs.ts";
import { saveRegistryReplica, stampOf, type RegistryStamp } from "./registry-replica-rows.ts";

/** What the leader needs of its own replica: its rows, and replacing them (each in one transaction). */
export interface RegistryReplicaStorage {
  readonly sql: SqlStorage;
  rows(): RegistryRows;
  /** Replaces the rows and stores the stamp, in one transaction. */
  install(stamp: RegistryStamp, rows: RegistryRows): void;
}

/**
 * What the registry's leading replica does with the other regions' (the rules are
 * src/share/share-state-replication.ts's, as share-partition state follows them): pushes each
 * call's writes as a change on top of the stamp it had (committed when every ISR member stored
 * it), and the whole registry to a replica that answers it is behind; before serving, brings
 * ISR members not known to hold its stamp up to date (a push that failed, a restart: one cheap
 * empty change each, the rows only when behind); at a takeover pulls the others' stamps
 * (fencing them) and copies the rows of the newest. Deposed at any refusal:
 * NOT_LEADER_OR_FOLLOWER. Nothing runs between calls: an idle registry costs nothing.
 */
export class RegistryLeadership {
  readonly #env: Env;
  readonly #storage: RegistryReplicaStorage;
  readonly #replica: () => StateReplica<null>;
  /** The newest stamp each other region is known to hold since this replica led (memory only: after a restart each is asked once). */
  readonly #heldBy = new Map<string, StateStamp>();
  /** When a region outside the ISR that did not answer is tried again. */
  readonly #retryAfterMs = new Map<string, number>();

  constructor(env: Env, storage: RegistryReplicaStorage, replica: () => StateReplica<null>) {
    this.#env = env;
    this.#storage = storage;
    this.#replica = replica;
  }

  /** A takeover at the key's epoch: confirmed by the controller, the others fenced, the newest rows adopted. */
  async takeOver(key: RegistryKey): Promise<void> {
    this.#heldBy.clear();
    const replica = this.#replica();
    if (key.replicas.length > 1) await this.#confirmWithController(key);
    replica.beginTakeover(key.leaderEpoch);
    saveRegistryReplica(this.#storage.sql, replica);
    const pulled = await this.#pullStamps(key);
    const newest = newestSnapshot([replica.current, ...pulled.map(({ stamp }) => stamp)]);
    if (newest !== null && newest !== replica.current) await this.#copyFrom(key, pulled.find(({ stamp }) => stamp === newest)!.region);
    else if (newest === null && key.topic === registryTopic) await this.#importLegacy();
    replica.finishTakeover(key.leaderEpoch, []);
    saveRegistryReplica(this.#storage.sql, replica);
    for (const { region, stamp } of pulled) if (stamp !== null) this.#heldBy.set(region, stamp);
  }

  /**
   * Before a call is served: every ISR member holds this replica's stamp, so nothing served was
   * not committed (a write whose push failed, then a read). Regions outside the ISR are brought
   * up to date best-effort, at most once per shareStateSyncRetryMs each.
   */
  async syncLagging(key: RegistryKey): Promise<void> {
    const current = this.#replica().current;
    if (current === null || key.replicas.length <= 1) return;
    const nowMs = Date.now();
    const lagging = otherRegions(key.replicas, key.region).filter((region) => {
      const held = this.#heldBy.get(region);
      const behind = held === undefined || compareStamps(held, current) < 0;
      return behind && (key.isr.includes(region) || (this.#retryAfterMs.get(region) ?? 0) <= nowMs);
    });
    await this.#push(key, current, current, [], lagging);
  }

  /** A call's writes, stamped `next` on top of `base`: pushed to every other region, committed when every ISR member stored them. */
  async replicateChange(key: RegistryKey, base: RegistryStamp | null, next: RegistryStamp, changes: RegistryChange[]): Promise<void> {
    await this.#push(key, base, next, changes, otherRegions(key.replicas, key.region));
  }

  async #push(key: RegistryKey, base: RegistryStamp | null, next: RegistryStamp, changes: RegistryChange[], regions: readonly string[]): Promise<void> {
    if (regions.length === 0) return;
    let rows: RegistryRows | undefined; // read once, for every region that is behind
    const outcomes = await Promise.all(
      regions.map(async (region): Promise<PushOutcome> => {
        try {
          const stub = schemaRegistryReplicaStub(this.#env, key.topicId, region);
          let answer: ChangeAnswer = unwrap(await stub.applyChange(stampOf(base), next, changes));
          if ("behind" in answer) answer = unwrap(await stub.installRows(next, (rows ??= this.#storage.rows())));
          return { region, answer };
        } catch {
          return { region, unreachable: true };
        }
      }),
    );
    for (const outcome of outcomes) {
      if ("answer" in outcome && "stored" in outcome.answer) this.#heldBy.set(outcome.region, stampOf(next)!);
      else if ("unreachable" in outcome) this.#retryAfterMs.set(outcome.region, Date.now() + shareStateSyncRetryMs);
    }
    const outcome = commitOutcome(outcomes, key.isr);
    if (outcome.kind === "deposed") this.#deposedBy(key, outcome.seenEpoch);
    if (outcome.kind === "not-enough-replicas") {
      throw new TributaryError("NOT_ENOUGH_REPLICAS", `the schema registry's replicas in ${outcome.missing.join(", ")} (in-sync) did not answer; retry shortly`);
    }
  }

  /** The other regions' stamps, each replica fenced at the key's epoch (unreachable ones skipped). Deposed when one has seen a newer epoch. */
  async #pullStamps(key: RegistryKey): Promise<{ region: string; stamp: RegistryStamp | null }[]> {
    const answers = await Promise.all(
      otherRegions(key.replicas, key.region).map(async (region) => {
        try {
          return { region, answer: unwrap(await schemaRegistryReplicaStub(this.#env, key.topicId, region).pullStamp(key.leaderEpoch)) };
        } catch {
          return undefined;
        }
      }),
    );
    const pulled: { region: string; stamp: RegistryStamp | null }[] = [];
    for (const entry of answers) {
      if (entry === undefined) continue;
      if ("refusedAt" in entry.answer) this.#deposedBy(key, entry.answer.refusedAt);
      else pulled.push({ region: entry.region, stamp: entry.answer.snapshot });
    }
    return pulled;
  }

  /** Takes the rows of the region holding the newest stamp. */
  async #copyFrom(key: RegistryKey, region: string): Promise<void> {
    const answer = unwrap(await schemaRegistryReplicaStub(this.#env, key.topicId, region).rowsAt(key.leaderEpoch));
    if ("refusedAt" in answer) this.#deposedBy(key, answer.refusedAt);
    else this.#storage.install(answer.stamp, answer.rows);
  }

  /** The deployment's first replicated leader takes the rows of the registry as it was before replication (one object), if any. */
  async #importLegacy(): Promise<void> {
    const rows = unwrap(await legacySchemaRegistryStub(this.#env).legacyRows());
    if (rows.schemas.length === 0 && rows.settings.length === 0) return;
    this.#storage.install({ epoch: this.#replica().seenEpoch, version: 1, payload: null }, rows);
  }

  /**
   * A takeover leads an epoch only while the controller names this region the leader: a
   * caller's metadata may be seconds old, and a replica whose storage were lost would otherwise
   * lead an epoch another incarnation of it already led (two histories at one epoch).
   */
  async #confirmWithController(key: RegistryKey): Promise<void> {
    const topic = unwrap(await controllerStub(this.#env).describeTopic(key.topic));
    const placement = topic.topicId === key.topicId ? topic.partitions[0] : undefined;
    if (placement === undefined) throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `topic ${key.topic}, the schema registry's anchor, no longer exists`);
    if (placement.leader !== key.region || placement.leaderEpoch !== key.leaderEpoch) this.#deposedBy(key, Math.max(placement.leaderEpoch, key.leaderEpoch + 1));
  }

  #deposedBy(key: RegistryKey, seenEpoch: number): void {
    if (seenEpoch <= key.leaderEpoch) return;
    this.#replica().deposedAt(seenEpoch);
    saveRegistryReplica(this.#storage.sql, this.#replica());
    throw registryNotLeader(key, seenEpoch);
  }
}

export function registryNotLeader(key: RegistryKey, seenEpoch: number): TributaryError {
  return new TributaryError("NOT_LEADER_OR_FOLLOWER", `the schema registry's replica in ${key.region} does not lead at epoch ${key.leaderEpoch} (epoch ${seenEpoch} seen)`, {
    leaderEpoch: seenEpoch,
  });
}
