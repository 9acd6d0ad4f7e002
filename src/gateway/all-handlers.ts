/**
 * Every handler the gateway serves, by API key: its own (./handlers/) and the consumer-group
 * ones (./groups/) and the share-group ones (./share/) (./groups/: `export const groupHandlers: GatewayHandlers`, spread in below with
 * `import { groupHandlers } from "./groups/index.ts"`). ApiVersions advertises exactly these
 * keys, each at the versions its layout in ./protocol/messages-*.ts covers.
 */
import type { GatewayHandlers } from "./handler-types.ts";
import { coreHandlers } from "./handlers/index.ts";
import { groupHandlers } from "./groups/index.ts";
import { shareHandlers } from "./share/index.ts";

export const gatewayHandlers: GatewayHandlers = { ...coreHandlers, ...groupHandlers, ...shareHandlers };
