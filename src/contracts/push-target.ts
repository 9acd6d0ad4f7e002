import type { DeliveryBatch } from "../subscriptions/delivery-batch.ts";

/*
 * How a push subscription reaches a Worker target (docs/api.md, Subscriptions): a service binding
 * of the deployment, looked up by the router when a subscription is made and by the subscription's
 * object when it delivers (src/objects/subscription-io.ts).
 */

/** A Worker target: `deliver(batch)` over its service binding (examples/push-worker). */
export interface PushTarget {
  deliver(batch: DeliveryBatch): Promise<unknown>;
}

/** The Worker bound as `binding` in the deployment's config (a Fetcher: Durable Object namespaces, buckets and variables have no `fetch`); undefined when there is none. */
export function serviceTarget(env: Env, binding: string): PushTarget | undefined {
  const bound = (env as unknown as Record<string, unknown>)[binding];
  if (bound === null || typeof bound !== "object" || typeof (bound as { fetch?: unknown }).fetch !== "function") return undefined;
  return bound as PushTarget;
}
