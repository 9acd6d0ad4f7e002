/**
 * The gateway's share-group handlers (docs/gateway.md, Share groups): KIP-932's consumers
 * translated onto Tributary's share groups, by Kafka API key.
 */
import type { GatewayHandlers } from "../handler-types.ts";
import { alterShareGroupOffsets, deleteShareGroupOffsets, describeShareGroupOffsets } from "./offsets-admin.ts";
import { shareGroupDescribe, shareGroupHeartbeat } from "./members.ts";
import { shareAcknowledge, shareFetch } from "./share-fetch.ts";

export const shareHandlers: GatewayHandlers = {
  76: shareGroupHeartbeat,
  77: shareGroupDescribe,
  78: shareFetch,
  79: shareAcknowledge,
  90: describeShareGroupOffsets,
  91: alterShareGroupOffsets,
  92: deleteShareGroupOffsets,
};
