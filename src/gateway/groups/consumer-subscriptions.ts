/**
 * What a connection remembers of its KIP-848 members. A ConsumerGroupHeartbeat carries the
 * subscription only when it changed (null otherwise), but the coordinator keeps topic names:
 * a regex (`subscribed_topic_regex`) is resolved here against the deployment's topics at every
 * heartbeat, so that a topic created later that matches is subscribed to, as Kafka's broker
 * does. The member's last subscription is kept per connection (the one its heartbeats come
 * on) and dropped when the connection closes; a member that comes back on another connection
 * and sends no subscription keeps the topics the coordinator has. The set of members also
 * tells OffsetCommit whose fenced commits are KIP-848's STALE_MEMBER_EPOCH.
 */
import { gatewayConsumerMembersPerConnectionMax } from "../../limits.ts";
import type { GatewayRequestContext } from "../handler-types.ts";

export interface RememberedSubscription {
  names: string[] | null;
  regex: RegExp | null;
  regexSource: string | null;
  /** The topics last sent to the coordinator for this member. */
  sentTopics: string[] | null;
}

const byConnection = new Map<number, Map<string, RememberedSubscription>>();

function keyOf(groupId: string, memberId: string): string {
  return `${groupId}\u0000${memberId}`;
}

/** The connection's memory of `memberId` in `groupId` (created empty). */
export function rememberedSubscription(context: GatewayRequestContext, groupId: string, memberId: string): RememberedSubscription {
  let members = byConnection.get(context.connectionId);
  if (members === undefined) {
    const created = new Map<string, RememberedSubscription>();
    byConnection.set(context.connectionId, created);
    context.onClose(() => byConnection.delete(context.connectionId));
    members = created;
  }
  const key = keyOf(groupId, memberId);
  let remembered = members.get(key);
  if (remembered === undefined) {
    remembered = { names: null, regex: null, regexSource: null, sentTopics: null };
    // A Map keeps insertion order: the first key is the member remembered longest.
    if (members.size >= gatewayConsumerMembersPerConnectionMax) members.delete(members.keys().next().value!);
    members.set(key, remembered);
  }
  return remembered;
}

export function forgetMember(context: GatewayRequestContext, groupId: string, memberId: string): void {
  byConnection.get(context.connectionId)?.delete(keyOf(groupId, memberId));
}

/** Whether `memberId` heartbeats with ConsumerGroupHeartbeat on this connection. */
export function isConsumerMember(context: GatewayRequestContext, groupId: string, memberId: string): boolean {
  return byConnection.get(context.connectionId)?.has(keyOf(groupId, memberId)) ?? false;
}

/**
 * Kafka's regex (RE2/J, matched against the whole topic name) as a JavaScript one; null when
 * it does not compile. The subset Kafka users write — classes, alternations, quantifiers,
 * escapes — means the same in both.
 */
export function compileTopicRegex(source: string): RegExp | null {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    return null;
  }
}

/** The topics a member subscribes to now: its names that exist, or the existing topics its regex matches (internal ones left out, as Kafka does). */
export function resolveSubscription(remembered: RememberedSubscription, existing: readonly string[]): string[] {
  const topics = new Set(existing);
  if (remembered.regex !== null) {
    const regex = remembered.regex;
    return existing.filter((topic) => !topic.startsWith("__") && regex.test(topic)).sort();
  }
  return [...new Set((remembered.names ?? []).filter((topic) => topics.has(topic)))].sort();
}
