/**
 * The GroupCoordinator's OffsetDelete (docs/api.md, Consumer groups; the rule in
 * src/group/offset-deletion.ts): the named partitions' committed offsets, and what transactions
 * hold of them, deleted in one SQLite transaction after the topics' metadata came — the
 * coordinator's `#change` runs it, so the index and waiting polls see the group as it is after.
 */
import type { GroupMembership } from "../group/index.ts";
import { planOffsetDeletion } from "../group/offset-deletion.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import type { OffsetDeleteReply, OffsetDeleteRequest } from "../contracts/group-coordinator-api.ts";
import type { GroupOffsetsStore } from "./group-offsets-store.ts";
import type { GroupTransactionalOffsets } from "./group-transactional-offsets.ts";

/** What the deletion reads and writes of the coordinator (read after the metadata's await: the group may have changed meanwhile). */
export interface OffsetDeletionTarget {
  exists: () => boolean;
  membership: () => GroupMembership;
  meta: (topics: string[]) => Promise<Map<string, TopicMetadata>>;
  offsets: GroupOffsetsStore;
  txnOffsets: GroupTransactionalOffsets;
  transaction: (body: () => void) => void;
}

export async function deleteGroupOffsets(name: string, request: OffsetDeleteRequest, target: OffsetDeletionTarget): Promise<OffsetDeleteReply> {
  const meta = await target.meta(request.partitions.map(({ topic }) => topic));
  const group = target.membership();
  const classicProtocolType = group.path === "classic" ? (group.describe().classic?.protocolType ?? null) : null;
  const view = { exists: target.exists(), empty: group.isEmpty(), classicProtocolType, subscribedTopics: group.subscribedTopics() };
  const plan = planOffsetDeletion(view, name, request.partitions, (topic) => meta.get(topic)?.partitions.length);
  if (plan.deletes.length > 0) {
    target.transaction(() => {
      target.offsets.deletePartitions(plan.deletes.map(({ topic, partition }) => ({ topicId: meta.get(topic)!.topicId, partition })));
      target.txnOffsets.drop(plan.deletes);
    });
  }
  return { partitions: plan.partitions };
}
