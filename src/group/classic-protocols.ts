/**
 * Which protocol (assignor) a classic group uses, and which a server-side assignment can stand
 * in for. Kafka's rules (ClassicGroup.selectProtocol, supportsProtocols) for the first; the
 * second is Tributary's (ARCHITECTURE.md decision 19): the server assigns partitions but has no
 * user data to give, so it may replace a client-side assignor only where the assignor's user
 * data says nothing the server does not know.
 */
import { decodeSubscription, MalformedConsumerProtocol } from "../protocol/consumer-protocol.ts";
import type { Subscription } from "../protocol/consumer-protocol.ts";
import { compareStrings } from "./assignment.ts";
import { bytesOf } from "./classic-group-state.ts";
import type { ClassicProtocol } from "./classic-group-state.ts";

/** Kafka consumers' protocol type; Kafka Connect's is "connect", and anything else is some other client's. */
export const consumerProtocolType = "consumer";

/**
 * Kafka's protocol choice: among the protocols every member supports, each member votes for the
 * first of its own list; the most votes win (ties by name, so the choice is deterministic).
 * Null when the members share none (then nobody could have joined: supportsProtocols).
 */
export function selectProtocol(members: readonly { protocols: readonly ClassicProtocol[] }[]): string | null {
  if (members.length === 0) return null;
  const supportedByAll = members
    .map(({ protocols }) => new Set(protocols.map(({ name }) => name)))
    .reduce((common, names) => new Set([...common].filter((name) => names.has(name))));
  const votes = new Map<string, number>();
  for (const { protocols } of members) {
    const vote = protocols.find(({ name }) => supportedByAll.has(name))?.name;
    if (vote !== undefined) votes.set(vote, (votes.get(vote) ?? 0) + 1);
  }
  const ranked = [...votes].sort(([a, aVotes], [b, bVotes]) => bVotes - aVotes || compareStrings(a, b));
  return ranked[0]?.[0] ?? null;
}

/**
 * Kafka's supportsProtocols: an empty group takes any protocol type and protocols; otherwise the
 * type must be the group's and one of the protocols supported by every member (the joining
 * member's own earlier list included, as in Kafka).
 */
export function supportsProtocols(
  groupProtocolType: string | null,
  members: readonly { protocols: readonly ClassicProtocol[] }[],
  request: { protocolType: string; protocols: readonly ClassicProtocol[] },
): boolean {
  if (groupProtocolType === null) return request.protocolType !== "" && request.protocols.length > 0;
  if (request.protocolType !== groupProtocolType) return false;
  return request.protocols.some(({ name }) => members.every(({ protocols }) => protocols.some((protocol) => protocol.name === name)));
}

/**
 * Assignors whose user data is the member's previous generation and partitions (Kafka's and
 * librdkafka's sticky ones): the coordinator knows both, so its assignment honours them.
 */
const stickyProtocols: ReadonlySet<string> = new Set(["sticky", "cooperative-sticky"]);

/**
 * Assignors whose members keep their partitions across a rejoin and give up only what the
 * SyncGroup answer leaves out (KIP-429). Every other one is eager: its member has revoked
 * everything before it sends JoinGroup.
 */
const cooperativeProtocols: ReadonlySet<string> = new Set(["cooperative-sticky"]);

export function isCooperative(protocolName: string): boolean {
  return cooperativeProtocols.has(protocolName);
}

/** A protocol's metadata as a consumer Subscription; undefined when it is none. */
export function subscriptionOf(metadata: string): Subscription | undefined {
  try {
    return decodeSubscription(bytesOf(metadata));
  } catch (error) {
    if (error instanceof MalformedConsumerProtocol) return undefined;
    throw error;
  }
}

/**
 * Why the server cannot assign in this protocol's place (null when it can): it is a consumer
 * Subscription with topics, and its assignor carries no user data, or only a sticky one's.
 * Kafka Streams ("stream"), and custom assignors with user data, need the leader's bytes.
 */
export function serverAssignmentRefusal(protocol: ClassicProtocol): string | null {
  const subscription = subscriptionOf(protocol.metadata);
  if (subscription === undefined || subscription.topics.length === 0) return `protocol ${protocol.name}'s metadata is no consumer subscription`;
  const userData = subscription.userData?.length ?? 0;
  if (userData > 0 && !stickyProtocols.has(protocol.name)) {
    return `assignor ${protocol.name} carries user data (${userData} bytes) that only its own client-side assignment can honour`;
  }
  return null;
}
