/**
 * Tributary's TypeScript client (the package's `./client` entry). Depends on `src/protocol/`
 * and `src/errors.ts` only (and the ACL model's types, `src/auth/acl.ts`), and on fetch and
 * Web APIs: Workers, Node ≥ 20, browsers.
 * docs/client.md is its reference.
 */
export { Tributary, type TributaryConfig, type RedactedConfig } from "./tributary.ts";
export { Admin, TopicsAdmin, GroupsAdmin, TokensAdmin } from "./admin.ts";
export { Producer, type ProducerOptions, type SendRequest } from "./producer.ts";
export { Transaction, type SendBatchRequest, type SendOffsetsRequest } from "./transaction.ts";
export { TransactionsAdmin, type PartitionProducer, type TransactionDescription, type TransactionState, type TransactionSummary } from "./transactions-admin.ts";
export type { CompressionCodec } from "../protocol/compression/codecs.ts";
export {
  Consumer,
  type ConsumerOptions,
  type ConsumerGroupMetadata,
  type RunConfig,
  type SubscribeRequest,
  type EachMessagePayload,
  type EachBatchPayload,
  type Batch,
} from "./consumer.ts";
export type { ConsumerEvents } from "./consumer-events.ts";
export { TopicHandle, PartitionHandle, type FetchOptions, type ProduceOptions, type WriteTokenOptions, type ReadTokenOptions } from "./topic.ts";
export type { PartitionStreamOptions, TopicStreamOptions, StreamEncoding, WebSocketConstructor, WebSocketLike } from "./stream.ts";
export { textOf, type Message, type ConsumedMessage, type KeyInput, type ValueInput, type HeadersInput } from "./records.ts";
export { TributaryError, isRetriable, isTributaryError, type ErrorCode, type ErrorDataFor, type ErrorDataByCode } from "./errors.ts";
/** For the service binding's RPC methods (src/service.ts): a Result's error value back into a TributaryError. */
export { unwrap as unwrapResult, type Result } from "../errors.ts";
export type { TributaryRpc, CallOptions, FetchQuery, FetchedBatches } from "../protocol/rpc.ts";
export { backoffMs, defaultRetryPolicy, type RetryPolicy } from "./retry.ts";
export { Secret } from "./secret.ts";
export type { Logger, LogFields, LogLevel } from "./logger.ts";
export type { FetcherLike, FetchFunction } from "./transport.ts";
export type * from "./types.ts";
/** Share groups (KIP-932): the share consumer, its acknowledgements, the group administration. */
export { ShareConsumer, RejectRecord } from "./share-consumer.ts";
export { ShareGroupsAdmin } from "./share-groups-admin.ts";
export type * from "./share-types.ts";
// Push subscriptions: their administration, and a webhook receiver's signature check.
export { SubscriptionsAdmin, type CreateSubscriptionRequest, type UpdateSubscriptionRequest, type Subscription, type SubscriptionDescription } from "./subscriptions-admin.ts";
export { verifyWebhookSignature, signatureHeader } from "../protocol/webhook-signature.ts";
export type { DeliveryBatch, DeliveryRecord } from "../protocol/subscription-schemas.ts";
