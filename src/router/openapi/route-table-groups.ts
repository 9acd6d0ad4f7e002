import {
  groupDescriptionSchema,
  groupListSchema,
  groupOffsetsSchema,
  heartbeatResponseSchema,
  joinResponseSchema,
  pollResponseSchema,
  resetOffsetsResponseSchema,
} from "../../protocol/response-schemas.ts";
import { commitOffsetsSchema, heartbeatSchema, joinGroupSchema, pollSchema, resetOffsetsSchema } from "../../protocol/schemas.ts";
import { leaderErrors, type RouteDoc } from "./route-doc.ts";

const noContent = { 204: { description: "Done" } };
const memberErrors = ["UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH"] as const;

/** Consumer groups (docs/api.md, Consumer groups). */
export const groupRouteDocs: readonly RouteDoc[] = [
  {
    method: "get", path: "/v1/groups", tag: "groups", auth: "token", objects: true,
    summary: "List the groups the token may describe, sorted by name",
    responses: { 200: { description: "The groups", json: groupListSchema } },
  },
  {
    method: "post", path: "/v1/groups/:group/members", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Join a group (a new member)",
    body: { json: joinGroupSchema },
    responses: { 201: { description: "The member, its epoch and assignment", json: joinResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED"],
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
    summary: "Leave a group",
    responses: noContent,
    errors: ["UNKNOWN_MEMBER_ID"],
  },
  {
    method: "post", path: "/v1/groups/:group/offsets", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Commit offsets (a member's, or any while the group is empty)",
    body: { json: commitOffsetsSchema },
    responses: noContent,
    errors: [...memberErrors, "NON_EMPTY_GROUP", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", "OFFSET_METADATA_TOO_LARGE"],
  },
  {
    method: "get", path: "/v1/groups/:group/offsets", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Committed offsets, high watermarks and lag",
    responses: { 200: { description: "Every partition of the subscribed topics and of those with commits", json: groupOffsetsSchema } },
    errors: ["GROUP_ID_NOT_FOUND", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/groups/:group/offsets/reset", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Reset an empty group's offsets of a topic (or plan it: dryRun)",
    body: { json: resetOffsetsSchema },
    responses: { 200: { description: "The positions set (or planned)", json: resetOffsetsResponseSchema } },
    errors: ["NON_EMPTY_GROUP", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...leaderErrors],
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
];
