/**
 * ApiVersions: exactly the APIs the gateway has a handler for, each at the versions its
 * layout covers — what is advertised is what works. (Answered by the connection itself: an
 * unsupported ApiVersions version gets this at v0 with UNSUPPORTED_VERSION, as Kafka does.)
 *
 * From v3 it names the cluster's features as a Kafka 4.4 broker does (the supported ones from 0
 * only from v4, as Kafka's: below), with the one a client
 * acts on here: `transaction.version` 2 (KIP-890 part 2), so that the Java client 4.x writes
 * transactions as on Kafka 4.4 — no AddPartitionsToTxn or AddOffsetsToTxn, Produce v12,
 * TxnOffsetCommit v5, and EndTxn v5, whose answer brings the epoch the end bumped to
 * (docs/gateway.md, Transactions). Clients that do not read features keep version 1.
 *
 * v5 (KIP-1242): a client that reconnects names the cluster and node it expects; another cluster
 * or node answers REBOOTSTRAP_REQUIRED (the client forgets its metadata and bootstraps again),
 * one named without the other INVALID_REQUEST — each with no APIs listed, as Kafka 4.4 answers.
 */
import type { BrokerInfo, GatewayHandlers } from "../handler-types.ts";
import { kafkaErrors } from "../kafka-errors.ts";
import { apiKeys, messageSchemas } from "../protocol/apis.ts";

/** The features the gateway supports and has finalized (Kafka's `kafka-features.sh describe`). */
export const gatewayFeatures = [{ name: "transaction.version", minVersion: 0, maxVersion: 2, finalized: 2 }] as const;

/** The epoch of the finalized features: they never change while a gateway runs (a client keeps the newest epoch's). */
const finalizedFeaturesEpoch = 1n;

/**
 * The answer at `version`: before v4 the supported features whose minimum is 0 are left out, as
 * Kafka 4.4's broker leaves them out (KAFKA-17011: clients older than that fix refuse such a
 * range), so `transaction.version` is then only among the finalized features.
 */
export function apiVersionsAnswer(handlers: GatewayHandlers, errorCode: number, version: number): Record<string, unknown> {
  const keys = [apiKeys.ApiVersions, ...Object.keys(handlers).map(Number)].filter((key, i, all) => all.indexOf(key) === i && messageSchemas.has(key));
  keys.sort((a, b) => a - b);
  return {
    errorCode,
    apiKeys: keys.map((apiKey) => {
      const [minVersion, maxVersion] = messageSchemas.get(apiKey)!.versions;
      return { apiKey, minVersion, maxVersion };
    }),
    throttleTimeMs: 0,
    supportedFeatures: gatewayFeatures.filter(({ minVersion }) => version >= 4 || minVersion > 0).map(({ name, minVersion, maxVersion }) => ({ name, minVersion, maxVersion })),
    finalizedFeaturesEpoch,
    finalizedFeatures: gatewayFeatures.map(({ name, finalized }) => ({ name, maxVersionLevel: finalized, minVersionLevel: finalized })),
  };
}

/** What a v5 request's expected cluster and node say of this gateway: NONE, INVALID_REQUEST or REBOOTSTRAP_REQUIRED. */
export function expectedNodeCheck(request: { clusterId?: string | null; nodeId?: number }, version: number, broker: Pick<BrokerInfo, "clusterId" | "nodeId">): number {
  if (version < 5) return kafkaErrors.NONE;
  const clusterId = request.clusterId ?? null;
  const nodeId = request.nodeId ?? -1;
  if ((clusterId === null) !== (nodeId === -1)) return kafkaErrors.INVALID_REQUEST;
  if (clusterId !== null && (clusterId !== broker.clusterId || nodeId !== broker.nodeId)) return kafkaErrors.REBOOTSTRAP_REQUIRED;
  return kafkaErrors.NONE;
}

/** The answer to a request refused (Kafka's getErrorResponse): the error alone, no APIs. */
export function apiVersionsRefusal(errorCode: number): Record<string, unknown> {
  return { errorCode, apiKeys: [], throttleTimeMs: 0 };
}
