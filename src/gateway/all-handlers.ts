/**
 * Every handler the gateway serves, by API key: its own (./handlers/) and the consumer-group
 * ones (./groups/, spread in here). ApiVersions advertises exactly these keys.
 */
import type { GatewayHandlers } from "./handler-types.ts";
import { coreHandlers } from "./handlers/index.ts";
import { groupHandlers } from "./groups/index.ts";

export const gatewayHandlers: GatewayHandlers = { ...coreHandlers, ...groupHandlers };
