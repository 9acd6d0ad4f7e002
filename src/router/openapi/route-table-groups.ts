import {
  classicHeartbeatResponseSchema,
  classicJoinResponseSchema,
  classicLeaveResponseSchema,
  classicSyncResponseSchema,
  groupDescriptionSchema,
  groupListSchema,
  groupOffsetsSchema,
  heartbeatResponseSchema,
  joinResponseSchema,
  pollResponseSchema,
  resetOffsetsResponseSchema,
  deleteOffsetsResponseSchema,
} from "../../protocol/response-schemas.ts";
import { routeQueries } from "../query.ts";
import {
  classicHeartbeatSchema,
  classicJoinSchema,
  classicLeaveSchema,
  classicSyncSchema,
  commitOffsetsSchema,
  deleteOffsetsSchema,
  heartbeatSchema,
  joinGroupSchema,
  pollSchema,
  resetOffsetsSchema,
} from "../../protocol/schemas.ts";
import { leaderErrors, type RouteDoc } from "./route-doc.ts";

const noContent = { 204: { description: "Done" } };
const memberErrors = ["UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH"] as const;
/** A classic member's own refusals (Kafka's FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS). */
const classicErrors = ["FENCED_INSTANCE_ID", "REBALANCE_IN_PROGRESS"] as const;

/** Consumer groups (docs/api.md, Consumer groups). */
export const groupRouteDocs: readonly RouteDoc[] = [
  {
    method: "get", path: "/v1/groups", tag: "groups", auth: "token", objects: true,
    summary: "List the groups the token may describe, sorted by name; filtered by state and type (Kafka's ListGroups filters)",
    query: routeQueries.listGroups,
    responses: { 200: { description: "The groups", json: groupListSchema } },
  },
  {
    method: "post", path: "/v1/groups/:group/members", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Join a group (a new member)",
    body: { json: joinGroupSchema },
    responses: { 201: { description: "The member, its epoch and assignment", json: joinResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", "INCONSISTENT_GROUP_PROTOCOL", "UNRELEASED_INSTANCE_ID"],
  },
  {
    method: "post", path: "/v1/groups/:group/members/:memberId/heartbeat", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Heartbeat: keep the membership, learn the assignment",
    body: { json: heartbeatSchema },
    responses: { 200: { description: "The member's epoch and assignment", json: heartbeatResponseSchema } },
    errors: [...memberErrors, "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "post", path: "/v1/groups/:group/members/:memberId/poll", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Poll: heartbeat, commit the positions sent, read the assigned partitions",
    body: { json: pollSchema },
    responses: { 200: { description: "The records read and the positions after them", json: pollResponseSchema } },
    errors: [...memberErrors, "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PARTITION", ...leaderErrors],
  },
  {
    method: "delete", path: "/v1/groups/:group/members/:memberId", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Leave a group (a static member: for now, with static=true)",
    query: ["static"],
    responses: noContent,
    errors: ["UNKNOWN_MEMBER_ID"],
  },
  {
    method: "post", path: "/v1/groups/:group/offsets", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Commit offsets (a member's, or any while the group is empty)",
    body: { json: commitOffsetsSchema },
    responses: noContent,
    errors: [...memberErrors, ...classicErrors, "NON_EMPTY_GROUP", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", "OFFSET_METADATA_TOO_LARGE"],
  },
  {
    method: "get", path: "/v1/groups/:group/offsets", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Committed offsets, high watermarks and lag",
    query: ["requireStable"],
    responses: { 200: { description: "Every partition of the subscribed topics and of those with commits", json: groupOffsetsSchema } },
    errors: ["GROUP_ID_NOT_FOUND", "UNSTABLE_OFFSET_COMMIT", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/groups/:group/offsets/reset", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Reset an empty group's offsets of a topic (or plan it: dryRun)",
    body: { json: resetOffsetsSchema },
    responses: { 200: { description: "The positions set (or planned)", json: resetOffsetsResponseSchema } },
    errors: ["NON_EMPTY_GROUP", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/groups/:group/offsets/delete", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Delete a group's committed offsets of some partitions (Kafka's OffsetDelete); a partition of a topic its members subscribe to is refused on its own",
    body: { json: deleteOffsetsSchema },
    responses: { 200: { description: "Each partition's outcome, in request order", json: deleteOffsetsResponseSchema } },
    errors: ["GROUP_ID_NOT_FOUND", "NON_EMPTY_GROUP", "TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "get", path: "/v1/groups/:group", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Describe a group and its members",
    responses: { 200: { description: "The group", json: groupDescriptionSchema } },
    errors: ["GROUP_ID_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/groups/:group", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Delete an empty group and its offsets",
    responses: noContent,
    errors: ["GROUP_ID_NOT_FOUND", "NON_EMPTY_GROUP"],
  },
  {
    method: "post", path: "/v1/groups/:group/classic/join", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "A classic member's JoinGroup (Kafka's classic protocol, the gateway's members)",
    body: { json: classicJoinSchema },
    responses: { 200: { description: "The generation joined; or still held (pending: send it again), or MEMBER_ID_REQUIRED's id", json: classicJoinResponseSchema } },
    errors: [...memberErrors, ...classicErrors, "INCONSISTENT_GROUP_PROTOCOL", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", "MESSAGE_TOO_LARGE"],
  },
  {
    method: "post", path: "/v1/groups/:group/classic/sync", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "A classic member's SyncGroup: the leader sends the assignments, each member gets its bytes",
    body: { json: classicSyncSchema },
    responses: { 200: { description: "The member's assignment bytes; or still held (pending: send it again)", json: classicSyncResponseSchema } },
    errors: [...memberErrors, ...classicErrors, "INCONSISTENT_GROUP_PROTOCOL", "MESSAGE_TOO_LARGE"],
  },
  {
    method: "post", path: "/v1/groups/:group/classic/heartbeat", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "A classic member's Heartbeat at its generation",
    body: { json: classicHeartbeatSchema },
    responses: { 200: { description: "Whether the member must rejoin", json: classicHeartbeatResponseSchema } },
    errors: [...memberErrors, ...classicErrors],
  },
  {
    method: "post", path: "/v1/groups/:group/classic/leave", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "A classic LeaveGroup of one or more members",
    body: { json: classicLeaveSchema },
    responses: { 200: { description: "Each member's outcome", json: classicLeaveResponseSchema } },
  },
];
