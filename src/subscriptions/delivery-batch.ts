import { recordJson } from "../protocol/record-json.ts";
import type { DecodedRecord } from "../protocol/record-batch.ts";

/**
 * What a target receives (docs/api.md, Subscriptions): a webhook as its JSON body, a Worker as
 * the argument of `deliver(batch)`. Keys, values and headers as UTF-8 text, as a fetch's
 * default encoding; `deliveryCount` is 1 on the first delivery of a record and grows with
 * each redelivery of the same offsets.
 */
export interface DeliveryBatch {
  subscription: string;
  topic: string;
  records: DeliveryRecord[];
}

export type DeliveryRecord = ReturnType<typeof recordJson> & { partition: number; deliveryCount: number };

export function deliveryBatch(subscription: string, topic: string, partition: number, records: readonly DecodedRecord[], deliveryCount: number): DeliveryBatch {
  return { subscription, topic, records: records.map((record) => ({ partition, ...recordJson(record, "utf8"), deliveryCount })) };
}
