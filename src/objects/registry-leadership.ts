import { TributaryError, unwrap } from "../errors.ts";
import type { RegistryChange, RegistryRows } from "../registry/registry-changes.ts";
import { newestSnapshot, otherRegions, type ChangeAnswer, type PullAnswer, type PushOutcome, type StateReplica } from "../replication/state-replication.ts";
import type { RegistryKey } from "../contracts/schema-registry-api.ts";
import { legacySchemaRegistryStub, schemaRegistryReplicaStub } from "../contracts/stubs.ts";
import { saveRegistryReplica, stampOf, type RegistryStamp } from "./registry-replica-rows.ts";
import { StateLeadership, type StatePlacement } from "./state-leadership.ts";
import { markSilentFollowers } from "./silent-followers.ts";

/** What the leader needs of its own replica: its rows, and replacing them (each in one transaction). */
export interface RegistryReplicaStorage {
  readonly sql: SqlStorage;
  rows(): RegistryRows;
  /** Replaces the rows and stores the stamp, in one transaction. */
  install(stamp: RegistryStamp, rows: RegistryRows): void;
}

/**
 * What the registry's leading replica does with the other regions' (the rules are
 * src/replication/state-replication.ts's, the leader's side src/objects/state-leadership.ts's,
 * as share-partition state's): pushes each call's writes as a change on top of the stamp it had
 * (committed when every ISR member stored it), and the whole registry to a replica that answers
 * it is behind; before serving, brings ISR members not known to hold its stamp up to date (a
 * push that failed, a restart: one cheap empty change each, the rows only when behind); at a
 * takeover pulls the others' stamps (fencing them) and copies the rows of the newest. Deposed at
 * any refusal: NOT_LEADER_OR_FOLLOWER. Nothing runs between calls: an idle registry costs nothing.
 */
export class RegistryLeadership {
  readonly #env: Env;
  readonly #storage: RegistryReplicaStorage;
  readonly #replica: () => StateReplica<null>;
  readonly #leadership: StateLeadership<null>;

  constructor(env: Env, storage: RegistryReplicaStorage, replica: () => StateReplica<null>) {
    this.#env = env;
    this.#storage = storage;
    this.#replica = replica;
    this.#leadership = new StateLeadership(replica, {
      saveEpochs: () => saveRegistryReplica(storage.sql, replica()),
      notLeader: (placement, seenEpoch) => registryNotLeader(placement, seenEpoch),
      notEnoughReplicas: (missing) => new TributaryError("NOT_ENOUGH_REPLICAS", `the schema registry's replicas in ${missing.join(", ")} (in-sync) did not answer; retry shortly`),
    });
  }

  /** A takeover at the key's epoch: confirmed by the controller, the others fenced, the newest rows adopted. */
  async takeOver(key: RegistryKey): Promise<void> {
    this.#leadership.forgetHeld();
    const replica = this.#replica();
    if (key.replicas.length > 1) await this.#leadership.confirmWithController(this.#env, placementOf(key));
    replica.beginTakeover(key.leaderEpoch);
    saveRegistryReplica(this.#storage.sql, replica);
    const pulled = await this.#pullStamps(key);
    const newest = newestSnapshot([replica.current, ...pulled.map(({ stamp }) => stamp)]);
    if (newest !== null && newest !== replica.current) await this.#copyFrom(key, pulled.find(({ stamp }) => stamp === newest)!.region);
    else if (newest === null) await this.#importLegacy(key);
    replica.finishTakeover(key.leaderEpoch, []);
    saveRegistryReplica(this.#storage.sql, replica);
    for (const { region, stamp } of pulled) if (stamp !== null) this.#leadership.noteHeld(region, stamp);
  }

  /**
   * Before a call is served: every ISR member holds this replica's stamp, so nothing served was
   * not committed (a write whose push failed, then a read). Regions outside the ISR are brought
   * up to date best-effort, at most once per shareStateSyncRetryMs each.
   */
  async syncLagging(key: RegistryKey): Promise<void> {
    const current = this.#replica().current;
    if (current === null || key.replicas.length <= 1) return;
    await this.#push(key, current, current, [], this.#leadership.lagging(placementOf(key), current, (region) => key.isr.includes(region)));
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
    const silent = outcomes.filter((outcome) => "unreachable" in outcome && key.isr.includes(outcome.region)).map(({ region }) => region);
    if (silent.length > 0) await markSilentFollowers(this.#env, placementOf(key), silent, "registry");
    this.#leadership.settlePush(placementOf(key), next, outcomes, key.isr);
  }

  /** The other regions' stamps, each replica fenced at the key's epoch (unreachable ones skipped). Deposed when one has seen a newer epoch. */
  async #pullStamps(key: RegistryKey): Promise<{ region: string; stamp: RegistryStamp | null }[]> {
    const answers = await Promise.all(
      otherRegions(key.replicas, key.region).map(async (region) => {
        try {
          return { region, answer: unwrap(await schemaRegistryReplicaStub(this.#env, key.topicId, region).pullStamp(key.leaderEpoch)) as PullAnswer<null> };
        } catch {
          return undefined;
        }
      }),
    );
    const reached = answers.filter((entry) => entry !== undefined);
    const stamps = this.#leadership.settlePulls(placementOf(key), reached.map(({ answer }) => answer));
    return reached.map(({ region }, index) => ({ region, stamp: stamps[index] ?? null }));
  }

  /** Takes the rows of the region holding the newest stamp; a takeover that cannot is not finished (the next call tries again). */
  async #copyFrom(key: RegistryKey, region: string): Promise<void> {
    let answer: { refusedAt: number } | { stamp: RegistryStamp; rows: RegistryRows };
    try {
      answer = unwrap(await schemaRegistryReplicaStub(this.#env, key.topicId, region).rowsAt(key.leaderEpoch));
    } catch {
      throw new TributaryError("NOT_ENOUGH_REPLICAS", `the schema registry's replica in ${region}, which holds its newest state, did not answer; retry shortly`);
    }
    if ("refusedAt" in answer) {
      this.#leadership.deposedBy(placementOf(key), answer.refusedAt);
      throw new TributaryError("NOT_ENOUGH_REPLICAS", `the schema registry's replica in ${region} no longer holds the state it answered; retry shortly`);
    }
    this.#storage.install(answer.stamp, answer.rows);
  }


  /** The deployment's first replicated leader takes the rows of the registry as it was before replication (one object), if any. */
  async #importLegacy(key: RegistryKey): Promise<void> {
    const rows = unwrap(await legacySchemaRegistryStub(this.#env, key.topic).legacyRows());
    if (rows.schemas.length === 0 && rows.settings.length === 0) return;
    this.#storage.install({ epoch: this.#replica().seenEpoch, version: 1, payload: null }, rows);
  }
}

/** The anchor partition's placement, as the shared leader's side takes it. */
const placementOf = (key: RegistryKey): StatePlacement => ({ ...key, partition: 0 });

export function registryNotLeader(key: { region: string; leaderEpoch: number }, seenEpoch: number): TributaryError {
  return new TributaryError("NOT_LEADER_OR_FOLLOWER", `the schema registry's replica in ${key.region} does not lead at epoch ${key.leaderEpoch} (epoch ${seenEpoch} seen)`, {
    leaderEpoch: seenEpoch,
  });
}
