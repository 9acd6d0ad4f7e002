/**
 * ConsumerGroupHeartbeat (KIP-848) translated onto the group's coordinator, which already is a
 * KIP-848 coordinator (docs/api.md, Consumer groups; ARCHITECTURE.md decision 19): epoch 0 is
 * a join (`POST /v1/groups/{g}/members`, under the id the client chose, KIP-1082), a positive
 * epoch a heartbeat with the partitions the member owns, -1 a leave and -2 a static member's
 * leave for now (it keeps its place until it comes back under its instance id). The coordinator
 * assigns with its own assignors (`group.remote.assignor`: uniform or range), moves member
 * epochs, and gives a partition to its new owner only once the old one let it go. Kafka names
 * topics by id on this API; Tributary's topic ids are its topics' UUIDs.
 */
import { randomUUID } from "node:crypto";
import { path } from "../../client/transport.ts";
import type { Assignment } from "../../group/assignment.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, TopicIdPartitions } from "./consumer-messages.ts";
import { compileTopicRegex, forgetMember, rememberedSubscription, resolveSubscription, type RememberedSubscription } from "./consumer-subscriptions.ts";
import { kafkaCodeOf, kafkaCodes } from "./kafka-codes.ts";

/** Kafka's codes of KIP-848 the gateway's table lacks. */
export const consumerCodes = { UNSUPPORTED_ASSIGNOR: 112, STALE_MEMBER_EPOCH: 113, INVALID_REGULAR_EXPRESSION: 128 } as const;

const serverAssignors = new Set(["uniform", "range"]);

interface MemberAnswer {
  memberId?: string;
  memberEpoch: number;
  assignment: Assignment;
  heartbeatIntervalMs: number;
}

export async function consumerGroupHeartbeat(request: ConsumerGroupHeartbeatRequest, context: GatewayRequestContext): Promise<ConsumerGroupHeartbeatResponse> {
  const failed = (errorCode: number, errorMessage: string | null = null): ConsumerGroupHeartbeatResponse => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    memberId: request.memberId === "" ? null : request.memberId,
    memberEpoch: request.memberEpoch,
    heartbeatIntervalMs: 0,
    assignment: null,
  });
  if (request.groupId === "") return failed(kafkaCodes.INVALID_REQUEST, "GroupId can't be empty.");
  if (context.apiVersion >= 1 && request.memberId === "") return failed(kafkaCodes.INVALID_REQUEST, "MemberId can't be empty.");
  const assignor = request.serverAssignor?.toLowerCase() ?? null;
  if (assignor !== null && !serverAssignors.has(assignor)) return failed(consumerCodes.UNSUPPORTED_ASSIGNOR, `the server's assignors are uniform and range, not ${request.serverAssignor}`);
  try {
    if (request.memberEpoch < 0) return await leave(request, context);
    // v0 leaves the id to the coordinator; a v1 client chose its own.
    const memberId = request.memberId === "" ? randomUUID() : request.memberId;
    const remembered = rememberedSubscription(context, request.groupId, memberId);
    const regexError = takeSubscription(remembered, request);
    if (regexError !== null) return failed(consumerCodes.INVALID_REGULAR_EXPRESSION, regexError);
    const topics = resolveSubscription(remembered, (await context.session.topics()).map(({ name }) => name));
    const changed = remembered.sentTopics === null || topics.join("\n") !== remembered.sentTopics.join("\n");
    let answer: MemberAnswer;
    if (request.memberEpoch === 0) {
      // Kafka takes a member subscribed to topics that do not exist yet; the coordinator needs one that does.
      if (topics.length === 0) return await waitingAnswer(memberId, remembered);
      answer = await context.transport.json<MemberAnswer & { memberId: string }>({
        method: "POST",
        path: path("groups", request.groupId, "members"),
        json: {
          memberId,
          topics,
          ...(assignor === null ? {} : { assignor }),
          ...(context.clientId === null ? {} : { clientId: context.clientId }),
          ...(request.instanceId === null || request.instanceId === "" ? {} : { groupInstanceId: request.instanceId }),
        },
      });
    } else {
      const ownedPartitions = request.topicPartitions === null ? undefined : await namedPartitions(request.topicPartitions, context);
      answer = await context.transport.json<MemberAnswer>({
        method: "POST",
        path: path("groups", request.groupId, "members", memberId, "heartbeat"),
        json: { memberEpoch: request.memberEpoch, ...(ownedPartitions === undefined ? {} : { ownedPartitions }), ...(changed && topics.length > 0 ? { topics } : {}) },
      });
    }
    if (topics.length > 0) remembered.sentTopics = topics;
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId,
      memberEpoch: answer.memberEpoch,
      heartbeatIntervalMs: answer.heartbeatIntervalMs,
      assignment: { topicPartitions: await identifiedPartitions(answer.assignment, context) },
    };
  } catch (error) {
    const code = kafkaCodeOf(error);
    // The group's override for classic members (ILLEGAL_GENERATION) is not this API's: a KIP-848 member is fenced.
    return failed(code === kafkaCodes.ILLEGAL_GENERATION ? kafkaCodes.FENCED_MEMBER_EPOCH : code, error instanceof Error ? error.message : null);
  }
}

/** Takes the request's subscription into the member's memory; answers why a regex does not compile (null when it does). */
function takeSubscription(remembered: RememberedSubscription, request: ConsumerGroupHeartbeatRequest): string | null {
  const regex = request.subscribedTopicRegex ?? null;
  if (regex !== null && regex !== "") {
    const compiled = compileTopicRegex(regex);
    if (compiled === null) return `the regular expression ${JSON.stringify(regex)} does not compile`;
    remembered.regex = compiled;
    remembered.regexSource = regex;
    remembered.names = null;
  } else if (request.subscribedTopicNames !== null) {
    remembered.names = request.subscribedTopicNames;
    remembered.regex = null;
    remembered.regexSource = null;
  }
  return null;
}

/** A joining member whose subscription names no existing topic yet: outside the group, at epoch 0, it asks again next heartbeat. */
async function waitingAnswer(memberId: string, remembered: RememberedSubscription): Promise<ConsumerGroupHeartbeatResponse> {
  remembered.sentTopics = null;
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, memberId, memberEpoch: 0, heartbeatIntervalMs: 5_000, assignment: { topicPartitions: [] } };
}

async function leave(request: ConsumerGroupHeartbeatRequest, context: GatewayRequestContext): Promise<ConsumerGroupHeartbeatResponse> {
  forgetMember(context, request.groupId, request.memberId);
  let errorCode = 0;
  try {
    // -2: a static member leaves for now, keeping its place until its session ends or it comes back (static-members.ts).
    const query = request.memberEpoch === -2 ? { static: "true" } : undefined;
    await context.transport.empty({ method: "DELETE", path: path("groups", request.groupId, "members", request.memberId), query });
  } catch (error) {
    errorCode = kafkaCodeOf(error);
  }
  return { throttleTimeMs: 0, errorCode, errorMessage: null, memberId: request.memberId, memberEpoch: request.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
}

/** The member's owned partitions by topic name; a topic id no topic has any more is left out. */
async function namedPartitions(owned: readonly TopicIdPartitions[], context: GatewayRequestContext): Promise<Assignment> {
  const named = await Promise.all(owned.map(async ({ topicId, partitions }) => ({ topic: await context.session.topicNamed(topicId), partitions })));
  return named.filter((entry): entry is { topic: string; partitions: number[] } => entry.topic !== undefined && entry.partitions.length > 0);
}

/** An assignment by topic id (a topic that cannot be described is left out: it was just deleted). */
export async function identifiedPartitions(assignment: Assignment, context: GatewayRequestContext): Promise<TopicIdPartitions[]> {
  const identified = await Promise.all(assignment.map(async ({ topic, partitions }) => ({ topicId: await context.session.topicId(topic), partitions: [...partitions] })));
  return identified.filter((entry): entry is TopicIdPartitions => entry.topicId !== undefined);
}
