/**
 * Kafka's RangeAssignor, per topic: the members subscribed to the topic in member-id order
 * each take a contiguous range of partitions; with n partitions and m members every member
 * takes ⌊n/m⌋ and the first n mod m take one more. Not sticky: the layout depends only on
 * who subscribes to what, which is the point of range (co-partitioned topics line up).
 */

import { normalizeAssignment } from "./assignment.ts";
import type { Assignment } from "./assignment.ts";
import type { Assignor, AssignorInput } from "./assignor.ts";
import { partitionCountOf, prepareMembers, subscribedTopicsOf } from "./assignor-input.ts";

export const rangeAssignor: Assignor = {
  name: "range",
  assign(input: AssignorInput): Map<string, Assignment> {
    const members = prepareMembers(input);
    const result = new Map<string, Assignment>(members.map((member) => [member.memberId, []]));
    for (const topic of subscribedTopicsOf(members)) {
      const subscribers = members.filter((member) => member.topics.includes(topic));
      const partitions = partitionCountOf(input, topic);
      const base = Math.floor(partitions / subscribers.length);
      const extra = partitions % subscribers.length;
      let next = 0;
      subscribers.forEach((member, index) => {
        const count = base + (index < extra ? 1 : 0);
        if (count === 0) return;
        const range = Array.from({ length: count }, (_, offset) => next + offset);
        result.get(member.memberId)?.push({ topic, partitions: range });
        next += count;
      });
    }
    for (const [memberId, assignment] of result) result.set(memberId, normalizeAssignment(assignment));
    return result;
  },
};
