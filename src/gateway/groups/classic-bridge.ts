/**
 * The pure decisions of the classic-member bridge (docs/gateway.md, Consumer groups): which of
 * a JoinGroup's protocols a member uses, how its join maps onto the coordinator, and the
 * settings it joins with. No I/O; the handlers in membership.ts act on these.
 *
 * Identity and fencing: the member id is the coordinator's; the generation id a classic member
 * sees is its member epoch. The epoch moves only when the member joins (a classic check-in
 * moves nothing), so a generation stays valid from a JoinGroup until the next one.
 */
import { sessionTimeoutMsMax, sessionTimeoutMsMin } from "../../limits.ts";
import { decodeSubscription, MalformedConsumerProtocol } from "../../protocol/consumer-protocol.ts";
import type { Subscription } from "../../protocol/consumer-protocol.ts";

/** The only protocol type the bridge speaks: Kafka consumers' (Kafka Connect's "connect" is not bridged). */
export const consumerProtocolType = "consumer";

/**
 * Assignors whose members keep their partitions across a rejoin and give up only what the
 * SyncGroup answer leaves out (KIP-429). Every other one is eager: its member has revoked
 * everything before it sends JoinGroup.
 */
const cooperativeProtocols: ReadonlySet<string> = new Set(["cooperative-sticky"]);

export interface ChosenProtocol {
  name: string;
  subscription: Subscription;
  cooperative: boolean;
}

/** The member's first protocol (its preference) whose metadata is a Subscription with topics; null when none is. */
export function chooseProtocol(protocols: readonly { name: string; metadata: Uint8Array }[]): ChosenProtocol | null {
  for (const { name, metadata } of protocols) {
    try {
      const subscription = decodeSubscription(metadata);
      if (subscription.topics.length > 0) return { name, subscription, cooperative: cooperativeProtocols.has(name) };
    } catch (error) {
      if (!(error instanceof MalformedConsumerProtocol)) throw error;
    }
  }
  return null;
}

/** Kafka's range assignor is the coordinator's "range"; every other client assignor leaves the choice to the group (uniform by default). */
export function assignorFor(protocolName: string): "range" | undefined {
  return protocolName === "range" ? "range" : undefined;
}

/** Kafka refuses a session timeout outside the broker's bounds with INVALID_SESSION_TIMEOUT; these are the coordinator's. */
export function sessionTimeoutAccepted(sessionTimeoutMs: number): boolean {
  return Number.isSafeInteger(sessionTimeoutMs) && sessionTimeoutMs >= sessionTimeoutMsMin && sessionTimeoutMs <= sessionTimeoutMsMax;
}

/**
 * How a JoinGroup maps onto the coordinator:
 * - `join`: a new member (no member id; JoinGroup v0–v3, which has no MEMBER_ID_REQUIRED);
 * - `join-then-require-id`: v4+ without a member id joins too, and answers MEMBER_ID_REQUIRED
 *   with the new id, which the client sends back (Kafka's KIP-394 dance; a client that never
 *   comes back expires after its session timeout, as Kafka's pending members do);
 * - `rejoin-eager`: the member gave up everything before joining: a heartbeat at epoch 0;
 * - `rejoin-cooperative`: the member still holds its partitions: a heartbeat at its current
 *   epoch listing the Subscription's owned partitions, so the coordinator revokes only what
 *   must move and frees it once the member shows, at its next join, that it let go.
 */
export type JoinPlan = "join" | "join-then-require-id" | "rejoin-eager" | "rejoin-cooperative";

export function joinPlan(memberId: string, apiVersion: number, cooperative: boolean): JoinPlan {
  if (memberId === "") return apiVersion >= 4 ? "join-then-require-id" : "join";
  return cooperative ? "rejoin-cooperative" : "rejoin-eager";
}

/** Tributary's group states by Kafka's classic names (DescribeGroups): a reconciling group is rebalancing. */
export function classicGroupState(state: string): string {
  if (state === "Reconciling") return "PreparingRebalance";
  return state;
}
