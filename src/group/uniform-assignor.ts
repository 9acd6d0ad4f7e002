/**
 * The default assignor, as Kafka's server-side UniformAssignor: balanced and sticky.
 *
 * Balanced: every member's partition count is within one of every other member with the same
 * subscription. Sticky: a member keeps what it has whenever balance allows, so a rebalance
 * moves as few partitions as possible — each move costs a revoke round trip and re-reading
 * from the last commit.
 *
 * Two paths, as Kafka has:
 * - every member subscribes to the same topics (the common case): quotas. With P partitions
 *   and M members each member's quota is ⌊P/M⌋, and the P mod M members that already hold
 *   the most get one more. A member keeps its partitions up to its quota and gives up the
 *   rest; free partitions fill the members below quota, round robin so each member gets a
 *   share of each topic. No assignment can move fewer partitions: a member holding more than
 *   its quota must give up the excess, and the larger quotas go where they save the most.
 * - otherwise: keep what is valid, hand each free partition to its least loaded subscriber
 *   (topics with the fewest subscribers first, as they have the least choice), then move one
 *   partition at a time from a most loaded member to a subscriber at least two partitions
 *   lighter until no such move exists. Each move lowers the sum of squared counts, so the
 *   loop ends; when it ends, members with equal subscriptions are within one of each other.
 */

import { assignmentFromKeys, assignmentKeys, compareStrings, partitionKey, parsePartitionKey } from "./assignment.ts";
import type { Assignment, PartitionKey } from "./assignment.ts";
import type { Assignor, AssignorInput } from "./assignor.ts";
import { partitionCountOf, prepareMembers } from "./assignor-input.ts";
import type { PreparedMember } from "./assignor-input.ts";

export const uniformAssignor: Assignor = {
  name: "uniform",
  assign(input: AssignorInput): Map<string, Assignment> {
    const members = prepareMembers(input);
    const held = sameSubscriptions(members) ? assignByQuota(members, input) : assignAndBalance(members, input);
    return new Map(members.map((member, index) => [member.memberId, assignmentFromKeys(held[index] ?? [])]));
  },
};

function sameSubscriptions(members: readonly PreparedMember[]): boolean {
  const first = members[0]?.topics.join("\n");
  return members.every((member) => member.topics.join("\n") === first);
}

/** Every partition of `topics`, sorted by topic then partition. */
function partitionsOf(topics: readonly string[], input: AssignorInput): PartitionKey[] {
  return topics.flatMap((topic) =>
    Array.from({ length: partitionCountOf(input, topic) }, (_, partition) => partitionKey(topic, partition)),
  );
}

function assignByQuota(members: readonly PreparedMember[], input: AssignorInput): PartitionKey[][] {
  if (members.length === 0) return [];
  const all = partitionsOf(members[0]?.topics ?? [], input);
  const valid = new Set(all);
  const taken = new Set<PartitionKey>();
  // What each member may keep: its current partitions that still exist, first claim wins.
  const held = members.map((member) => {
    const keys: PartitionKey[] = [];
    for (const key of assignmentKeys(member.currentAssignment)) {
      if (valid.has(key) && !taken.has(key)) keys.push(key), taken.add(key);
    }
    return keys;
  });
  const base = Math.floor(all.length / members.length);
  const quotas = held.map(() => base);
  const byHeld = held.map((_, index) => index).sort((a, b) => held[b]!.length - held[a]!.length || a - b);
  for (const index of byHeld.slice(0, all.length % members.length)) quotas[index]! += 1;
  held.forEach((keys, index) => {
    for (const key of keys.splice(quotas[index]!)) taken.delete(key);
  });
  let next = 0;
  for (const key of all) {
    if (taken.has(key)) continue;
    // Round robin over members below quota; total quota equals the partition count, so one exists.
    while (held[next % members.length]!.length >= quotas[next % members.length]!) next += 1;
    held[next % members.length]!.push(key);
    next += 1;
  }
  return held;
}

/** The heterogeneous path: per member, topic → partitions it holds. */
type Holdings = Map<string, Set<number>>[];

function assignAndBalance(members: readonly PreparedMember[], input: AssignorInput): PartitionKey[][] {
  const subscribers = new Map<string, number[]>();
  members.forEach((member, index) => {
    for (const topic of member.topics) subscribers.set(topic, [...(subscribers.get(topic) ?? []), index]);
  });
  const holdings: Holdings = members.map(() => new Map());
  const counts = members.map(() => 0);
  const owned = new Set<PartitionKey>();
  const give = (index: number, topic: string, partition: number): void => {
    const topicHoldings = holdings[index]!.get(topic) ?? new Set();
    holdings[index]!.set(topic, topicHoldings.add(partition));
    counts[index]! += 1;
    owned.add(partitionKey(topic, partition));
  };
  members.forEach((member, index) => {
    for (const key of assignmentKeys(member.currentAssignment)) {
      const { topic, partition } = parsePartitionKey(key);
      const valid = member.topics.includes(topic) && partition < partitionCountOf(input, topic);
      if (valid && !owned.has(key)) give(index, topic, partition);
    }
  });
  const topicsByChoice = [...subscribers.keys()].sort(
    (a, b) => subscribers.get(a)!.length - subscribers.get(b)!.length || compareStrings(a, b),
  );
  for (const topic of topicsByChoice) {
    const candidates = subscribers.get(topic)!;
    for (let partition = 0; partition < partitionCountOf(input, topic); partition++) {
      if (owned.has(partitionKey(topic, partition))) continue;
      give(lightest(candidates, counts), topic, partition);
    }
  }
  balance(holdings, counts, subscribers);
  return holdings.map((byTopic) =>
    [...byTopic].flatMap(([topic, partitions]) => [...partitions].map((partition) => partitionKey(topic, partition))),
  );
}

/** The candidate with the fewest partitions; the first in member-id order on a tie. */
function lightest(candidates: readonly number[], counts: readonly number[]): number {
  let best = candidates[0]!;
  for (const candidate of candidates) if (counts[candidate]! < counts[best]!) best = candidate;
  return best;
}

function balance(holdings: Holdings, counts: number[], subscribers: Map<string, number[]>): void {
  const total = counts.reduce((sum, count) => sum + count, 0);
  // Each move lowers Σ count² by at least 2, and Σ count² ≤ total²: a bound, not an estimate.
  const movesMax = (total * total) / 2 + 1;
  for (let moves = 0; ; moves++) {
    if (moves > movesMax) throw new Error("uniform assignor: balancing did not converge");
    const move = findMove(holdings, counts, subscribers);
    if (move === undefined) return;
    const from = holdings[move.donor]!.get(move.topic)!;
    const partition = Math.max(...from);
    from.delete(partition);
    counts[move.donor]! -= 1;
    const to = holdings[move.receiver]!.get(move.topic) ?? new Set();
    holdings[move.receiver]!.set(move.topic, to.add(partition));
    counts[move.receiver]! += 1;
  }
}

interface Move {
  donor: number;
  receiver: number;
  topic: string;
}

/** A move from the most loaded member that can give to someone two or more lighter. */
function findMove(holdings: Holdings, counts: readonly number[], subscribers: Map<string, number[]>): Move | undefined {
  const minCount = Math.min(...counts);
  const donors = counts.map((_, index) => index).sort((a, b) => counts[b]! - counts[a]! || a - b);
  for (const donor of donors) {
    const donorCount = counts[donor]!;
    if (donorCount - 2 < minCount) return undefined; // lighter donors can help nobody either
    let best: Move | undefined;
    for (const [topic, partitions] of holdings[donor]!) {
      if (partitions.size === 0) continue;
      for (const receiver of subscribers.get(topic) ?? []) {
        if (counts[receiver]! > donorCount - 2) continue;
        if (best === undefined || counts[receiver]! < counts[best.receiver]!) best = { donor, receiver, topic };
      }
    }
    if (best !== undefined) return best;
  }
  return undefined;
}
