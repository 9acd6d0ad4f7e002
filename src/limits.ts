/**
 * Every bound in Tributary, in one place (ARCHITECTURE.md decision 8): this index re-exports the
 * bounds of each concept from the file that holds them, with its reason. Each constant is named
 * with its unit last and says why it has the value it has. Code enforces these before doing any
 * work, so a request over a bound is refused with nothing written.
 *
 * Code imports bounds from here, never from a concept file: one path to every bound, whatever
 * file it lives in (AGENTS.md, "Where things live").
 *
 * - limits/log.ts: records and batches, topics, fetches, the tail cache, long-poll waiters,
 *   group commit, idempotent producers, tiered storage
 * - limits/replication.ts: leader pushes, acks "all", the controller's fan-out
 * - limits/groups.ts: consumer groups
 * - limits/share-groups.ts: share groups and the replication of their state
 * - limits/router.ts: request bodies, cached metadata, tokens, quotas, metrics, catch-up reads from R2
 * - limits/streams.ts: SSE and WebSocket streams, WebSocket credit, Durable Streams
 * - limits/subscriptions.ts: push subscriptions
 * - limits/gateway.ts: the Kafka gateway
 * - limits/scram.ts: SCRAM's credentials, exchanges and session tokens (the gateway's SASL)
 * - limits/client.ts: the TypeScript client's own choices
 * - limits/registry.ts: the schema registry (schema size, subjects, versions, references)
 * - limits/transactions.ts: transactions' timeouts, sizes, marker retries, producer epochs
 */

export * from "./limits/log.ts";
export * from "./limits/replication.ts";
export * from "./limits/groups.ts";
export * from "./limits/share-groups.ts";
export * from "./limits/router.ts";
export * from "./limits/streams.ts";
export * from "./limits/subscriptions.ts";
export * from "./limits/gateway.ts";
export * from "./limits/scram.ts";
export * from "./limits/client.ts";
export * from "./limits/registry.ts";
export * from "./limits/transactions.ts";
