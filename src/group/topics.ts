/**
 * The group's view of its topics: which ones its members subscribe to, how many partitions
 * each has, and which partitions were added after the group subscribed.
 */

import { partitionsIn } from "./assignment.ts";
import type { TopicsMeta } from "./assignment.ts";
import type { MemberState, TopicState } from "./group-state.ts";

/**
 * Brings `topics` in line with the members' subscriptions and the metadata passed in; returns
 * whether anything changed. Partition counts only grow here: the metadata comes from router
 * caches up to 5 s old, and a stale one must not take partitions away (deletion is
 * ConsumerGroup.removeTopic). A topic the metadata does not mention keeps what it had.
 */
export function refreshTopics(
  topics: Map<string, TopicState>,
  members: Iterable<MemberState>,
  meta: TopicsMeta | undefined,
): boolean {
  const subscribed = new Set<string>();
  for (const member of members) for (const topic of member.subscribedTopics) subscribed.add(topic);
  let changed = false;
  for (const topic of topics.keys()) {
    if (subscribed.has(topic)) continue;
    topics.delete(topic);
    changed = true;
  }
  for (const topic of subscribed) {
    const seen = meta === undefined ? undefined : partitionsIn(meta, topic);
    const count = seen !== undefined && Number.isSafeInteger(seen) && seen > 0 ? seen : undefined;
    const state = topics.get(topic);
    if (state === undefined) {
      // Subscriptions are checked against metadata first, so a count is known here.
      topics.set(topic, { topic, partitions: count ?? 0, partitionsAtSubscribe: count ?? 0 });
      changed = true;
    } else if (count !== undefined && count > state.partitions) {
      state.partitions = count;
      changed = true;
    }
  }
  return changed;
}
