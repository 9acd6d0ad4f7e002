import { deliveryAnswerSchema, type DeliveryAck } from "../protocol/subscription-schemas.ts";

export type AckType = DeliveryAck["type"];

/**
 * A target's accepted answer (docs/api.md, Subscriptions): a 2xx with any body, or a resolved
 * `deliver`, accepts the batch; `{"acknowledgements": [{partition, offset, type}]}` settles
 * single records, the others accepted. An acknowledgement of a record the batch did not carry
 * is ignored. Answers the type of each record an acknowledgement names, by "partition:offset".
 */
export function acknowledgementsOf(answer: unknown): Map<string, AckType> {
  const parsed = deliveryAnswerSchema.safeParse(answer);
  const acks = new Map<string, AckType>();
  if (!parsed.success) return acks;
  for (const ack of parsed.data.acknowledgements) acks.set(recordKey(ack.partition, ack.offset), ack.type);
  return acks;
}

/** A webhook's body as an answer: JSON when it parses, else nothing to settle singly. */
export function acknowledgementsOfText(body: string): Map<string, AckType> {
  if (body.length === 0) return new Map();
  try {
    return acknowledgementsOf(JSON.parse(body));
  } catch {
    return new Map();
  }
}

export function recordKey(partition: number, offset: number): string {
  return `${partition}:${offset}`;
}
