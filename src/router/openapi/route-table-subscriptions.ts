import {
  createSubscriptionSchema,
  patchSubscriptionSchema,
  subscriptionDescriptionSchema,
  subscriptionListSchema,
  subscriptionSchema,
} from "../../protocol/subscription-schemas.ts";
import { leaderErrors, type RouteDoc } from "./route-doc.ts";

/** Push subscriptions (docs/api.md, Subscriptions). */
export const subscriptionRouteDocs: readonly RouteDoc[] = [
  {
    method: "post", path: "/v1/subscriptions", tag: "subscriptions", auth: "token", resource: "cluster", objects: true,
    summary: "Create a subscription: push a topic's records to a webhook or a Worker",
    description: "Needs `create` on the cluster and `read` on the topic. A webhook's origin must be in SUBSCRIPTION_ORIGINS; a service target must be a Worker bound in the deployment's wrangler config.",
    body: { json: createSubscriptionSchema },
    responses: { 201: { description: "The subscription", json: subscriptionSchema } },
    errors: ["SUBSCRIPTION_ALREADY_EXISTS", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED", ...leaderErrors],
  },
  {
    method: "get", path: "/v1/subscriptions", tag: "subscriptions", auth: "token", resource: "cluster", objects: true,
    summary: "List the subscriptions of the topics the token may describe, sorted by name",
    responses: { 200: { description: "The subscriptions", json: subscriptionListSchema } },
  },
  {
    method: "get", path: "/v1/subscriptions/:name", tag: "subscriptions", auth: "token", resource: "cluster", objects: true,
    summary: "Describe a subscription: its settings, counters, lag and positions",
    responses: { 200: { description: "The subscription", json: subscriptionDescriptionSchema } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/subscriptions/:name", tag: "subscriptions", auth: "token", resource: "cluster", objects: true,
    summary: "Pause, resume, re-target or re-size a subscription",
    description: "Needs `alter` on the cluster and `read` on the topic.",
    body: { json: patchSubscriptionSchema },
    responses: { 200: { description: "The subscription", json: subscriptionSchema } },
    errors: ["NOT_FOUND", "UNKNOWN_TOPIC_OR_PARTITION", "TOPIC_AUTHORIZATION_FAILED"],
  },
  {
    method: "delete", path: "/v1/subscriptions/:name", tag: "subscriptions", auth: "token", resource: "cluster", objects: true,
    summary: "Delete a subscription: no delivery starts once this answers",
    responses: { 204: { description: "Deleted" } },
    errors: ["NOT_FOUND"],
  },
];
