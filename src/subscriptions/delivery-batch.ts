import { recordJson } from "../protocol/record-json.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";
import type { DeliveryBatch } from "../protocol/subscription-schemas.ts";

export type { DeliveryBatch };

/** One partition's records as a target receives them (src/protocol/subscription-schemas.ts, DeliveryBatch). */
export function deliveryBatch(subscription: string, topic: string, partition: number, records: readonly DecodedRecord[], deliveryCount: number): DeliveryBatch {
  return { subscription, topic, records: records.map((record) => ({ partition, ...recordJson(record, "utf8"), deliveryCount })) };
}
