/**
 * Tributary's Worker entry: the router (HTTP API) and the Durable Object classes.
 * Layers only call downward: router → objects → pure core (log, topics, protocol).
 */
import { createApp } from "./router/app.ts";

export { Controller } from "./objects/controller.ts";
export { GroupCoordinator } from "./objects/group-coordinator.ts";
export { PartitionReplica } from "./objects/partition-replica.ts";
export { QuotaMeter } from "./objects/quota-meter.ts";
export { ShareGroup, ShareGroupIndex } from "./objects/share-group.ts";
export { SharePartitionState } from "./objects/share-partition-state.ts";
export { Subscription } from "./objects/subscription.ts";
export { TributaryService } from "./service.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
