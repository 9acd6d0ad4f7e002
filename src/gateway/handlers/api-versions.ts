/**
 * ApiVersions: exactly the APIs the gateway has a handler for, each at the versions its
 * layout covers — what is advertised is what works. (Answered by the connection itself: an
 * unsupported ApiVersions version gets this at v0 with UNSUPPORTED_VERSION, as Kafka does.)
 */
import type { GatewayHandlers } from "../handler-types.ts";
import { apiKeys, messageSchemas } from "../protocol/apis.ts";

export function apiVersionsAnswer(handlers: GatewayHandlers, errorCode: number): Record<string, unknown> {
  const keys = [apiKeys.ApiVersions, ...Object.keys(handlers).map(Number)].filter((key, i, all) => all.indexOf(key) === i && messageSchemas.has(key));
  keys.sort((a, b) => a - b);
  return {
    errorCode,
    apiKeys: keys.map((apiKey) => {
      const [minVersion, maxVersion] = messageSchemas.get(apiKey)!.versions;
      return { apiKey, minVersion, maxVersion };
    }),
    throttleTimeMs: 0,
  };
}
