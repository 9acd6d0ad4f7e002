import {
  shareAcknowledgeResponseSchema,
  shareAcknowledgeSchema,
  shareFetchResponseSchema,
  shareFetchSchema,
  shareGroupConfigsResponseSchema,
  shareGroupConfigsSchema,
  shareGroupDescriptionSchema,
  shareGroupListSchema,
  shareResetResponseSchema,
  shareResetSchema,
} from "../../protocol/share-schemas.ts";
import { leaderErrors, type RouteDoc } from "./route-doc.ts";

/** Share groups (docs/api.md, Share groups; KIP-932). */
export const shareGroupRouteDocs: readonly RouteDoc[] = [
  {
    method: "get", path: "/v1/share-groups", tag: "groups", auth: "token", objects: true,
    summary: "List the share groups the token may describe, sorted by name",
    responses: { 200: { description: "The share groups", json: shareGroupListSchema } },
  },
  {
    method: "post", path: "/v1/share-groups/:group/fetch", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Acquire records under a lock for a new lease (acknowledgements of earlier fetches may ride along)",
    body: { json: shareFetchSchema },
    responses: { 200: { description: "The records acquired, their lease and when its locks expire", json: shareFetchResponseSchema } },
    errors: ["UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...leaderErrors],
  },
  {
    method: "post", path: "/v1/share-groups/:group/acknowledge", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Accept, release or reject records a lease holds (per partition: all or none)",
    body: { json: shareAcknowledgeSchema },
    responses: { 200: { description: "Per partition, applied or the error (INVALID_RECORD_STATE: not held by the lease)", json: shareAcknowledgeResponseSchema } },
    errors: ["TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "patch", path: "/v1/share-groups/:group/configs", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Change a share group's configs (creates the group)",
    body: { json: shareGroupConfigsSchema },
    responses: { 200: { description: "Every config with its effective value", json: shareGroupConfigsResponseSchema } },
    errors: ["INVALID_CONFIG", "TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "post", path: "/v1/share-groups/:group/offsets/reset", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Move a share group's partitions of a topic (or plan it: dryRun); refused while records are acquired",
    body: { json: shareResetSchema },
    responses: { 200: { description: "Where each partition starts now (or would)", json: shareResetResponseSchema } },
    errors: ["GROUP_ID_NOT_FOUND", "NON_EMPTY_GROUP", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...leaderErrors],
  },
  {
    method: "get", path: "/v1/share-groups/:group", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Describe a share group: configs and share-partitions",
    responses: { 200: { description: "The share group", json: shareGroupDescriptionSchema } },
    errors: ["GROUP_ID_NOT_FOUND", ...leaderErrors],
  },
  {
    method: "delete", path: "/v1/share-groups/:group", tag: "groups", auth: "token", resource: "group", objects: true,
    summary: "Delete a share group and its state; refused while records are acquired",
    responses: { 204: { description: "Done" } },
    errors: ["GROUP_ID_NOT_FOUND", "NON_EMPTY_GROUP"],
  },
];
