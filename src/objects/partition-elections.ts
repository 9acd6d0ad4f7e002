import { TributaryError, unwrap } from "../errors.ts";
import { replicaCallTimeoutMs } from "../limits.ts";
import { alterPartition, electLeader, type AlterPartitionRequest, type PartitionState } from "../replication/partition-state.ts";
import { effectiveTopicConfigs } from "../topics/topic-configs.ts";
import type { PartitionPlacement, TopicMetadata } from "../topics/topic-metadata.ts";
import { partitionConfig } from "../contracts/partition-config.ts";
import { withTimeout } from "./replication-driver.ts";
import { replicaStub } from "../contracts/stubs.ts";

export interface PartitionRef {
  topicId: string;
  partition: number;
}

/**
 * The controller's half of replication (ARCHITECTURE.md decision 5): AlterPartition as a
 * compare-and-set on the partition epoch, and leader elections when a leader is reported
 * unreachable. Partition state lives in the controller's `partitions` table and its
 * in-memory topic map, which the controller hands in.
 */
export class PartitionElections {
  readonly #env: Env;
  readonly #sql: SqlStorage;
  readonly #topics: Map<string, TopicMetadata>;
  readonly #elections = new Map<string, Promise<PartitionState>>();

  constructor(env: Env, sql: SqlStorage, topics: Map<string, TopicMetadata>) {
    this.#env = env;
    this.#sql = sql;
    this.#topics = topics;
  }

  /** AlterPartition from a leader; answers the new state, or throws with the current one. */
  alterPartition(ref: PartitionRef, request: AlterPartitionRequest): PartitionState {
    const { topic, placement } = this.#find(ref);
    const next = alterPartition(placement, request);
    this.#save(topic, { ...next, partition: ref.partition });
    return next;
  }

  /**
   * A router could not reach the leader of `leaderEpoch`. Unless the epoch has moved on or a
   * probe finds the leader alive, elects a new leader from the ISR (unclean only when the
   * topic allows it), bumps the epochs, persists, and tells the replicas. One election per
   * partition at a time; concurrent reports share it. Answers the partition's state.
   */
  async reportUnreachable(ref: PartitionRef, leaderEpoch: number): Promise<PartitionState> {
    const key = `${ref.topicId}/${ref.partition}`;
    const running = this.#elections.get(key);
    if (running) return running;
    const election = this.#elect(ref, leaderEpoch).finally(() => this.#elections.delete(key));
    this.#elections.set(key, election);
    return election;
  }

  async #elect(ref: PartitionRef, leaderEpoch: number): Promise<PartitionState> {
    const { topic, placement } = this.#find(ref);
    if (placement.leaderEpoch !== leaderEpoch || (await this.#alive(ref, placement.leader))) return placement;
    const alive = new Set<string>();
    for (const replica of placement.replicas) {
      if (replica !== placement.leader && (await this.#alive(ref, replica))) alive.add(replica);
    }
    const unclean = effectiveTopicConfigs(topic.configs)["unclean.leader.election.enable"] === "true";
    const next = electLeader(placement, placement.leader, (replica) => alive.has(replica), unclean);
    if (!next) {
      throw new TributaryError("LEADER_NOT_AVAILABLE", `partition ${ref.partition} has no live in-sync replica to lead it`);
    }
    this.#save(topic, { ...next, partition: ref.partition });
    await this.#announce(ref, topic, next);
    return next;
  }

  /**
   * Tells every replica the new state: the new leader must hear it (it answered a probe
   * just now); a follower that misses it learns the new epoch from the leader's first push,
   * so its failure is harmless and not retried here.
   */
  async #announce(ref: PartitionRef, topic: TopicMetadata, state: PartitionState): Promise<void> {
    const config = partitionConfig(topic);
    await Promise.allSettled(
      state.replicas.map(async (region) => {
        const call = replicaStub(this.#env, ref.topicId, ref.partition, region).applyState({ ...ref, region, placement: state, config });
        const result = await withTimeout(call, replicaCallTimeoutMs);
        if (region === state.leader) unwrap(result);
      }),
    );
  }

  async #alive(ref: PartitionRef, region: string): Promise<boolean> {
    try {
      unwrap(await withTimeout(replicaStub(this.#env, ref.topicId, ref.partition, region).ping({ ...ref, region }), replicaCallTimeoutMs));
      return true;
    } catch {
      return false;
    }
  }

  #find(ref: PartitionRef): { topic: TopicMetadata; placement: PartitionPlacement } {
    for (const topic of this.#topics.values()) {
      if (topic.topicId !== ref.topicId) continue;
      const placement = topic.partitions[ref.partition];
      if (placement) return { topic, placement };
    }
    throw new TributaryError("UNKNOWN_TOPIC_OR_PARTITION", `no partition ${ref.partition} of topic id ${ref.topicId}`);
  }

  #save(topic: TopicMetadata, placement: PartitionPlacement): void {
    this.#sql.exec(
      "UPDATE partitions SET leader = ?, isr = ?, leader_epoch = ?, partition_epoch = ? WHERE topic_id = ? AND partition = ?",
      placement.leader,
      JSON.stringify(placement.isr),
      placement.leaderEpoch,
      placement.partitionEpoch,
      topic.topicId,
      placement.partition,
    );
    const partitions = topic.partitions.map((existing) => (existing.partition === placement.partition ? placement : existing));
    this.#topics.set(topic.name, { ...topic, partitions });
  }
}
