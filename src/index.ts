/**
 * Tributary's Worker entry: the HTTP app (src/app.ts) and the Durable Object classes.
 * Layers only call downward: router → data plane → contracts ← objects → pure core (AGENTS.md).
 */
import "./zstd-wasm-decoder.ts";
import { createApp } from "./app.ts";

export { Controller } from "./objects/controller.ts";
export { GroupCoordinator } from "./objects/group-coordinator.ts";
export { PartitionReplica } from "./objects/partition-replica.ts";
export { QuotaMeter } from "./objects/quota-meter.ts";
export { SchemaRegistry } from "./objects/schema-registry.ts";
export { ShareGroup, ShareGroupIndex } from "./objects/share-group.ts";
export { SharePartitionState } from "./objects/share-partition-state.ts";
export { Subscription } from "./objects/subscription.ts";
export { TransactionCoordinator } from "./objects/transaction-coordinator.ts";
export { TributaryService } from "./service.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
