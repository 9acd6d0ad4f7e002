// @ts-check
/**
 * A Worker that Tributary pushes to (docs/api.md, Subscriptions): a subscription with the
 * target `{"service": "PUSH_EXAMPLE"}` calls `deliver(batch)` over the service binding
 * Tributary's wrangler config declares. Each record of `orders` is an order as JSON; the Worker
 * "confirms" it by writing a receipt to the `receipts` topic (through its own binding to
 * Tributary) and rejects the records that are not orders — Tributary writes those to the
 * subscription's dead-letter topic. Resolving accepts the batch; throwing releases it, and
 * Tributary delivers the same offsets again after a backoff, so a receipt names the order's
 * offset and a reader can drop duplicates.
 *
 * @typedef {import("../../../src/protocol/rpc.ts").TributaryRpc} TributaryRpc
 * @typedef {import("../../../src/protocol/subscription-schemas.ts").DeliveryBatch} DeliveryBatch
 * @typedef {{ TRIBUTARY: TributaryRpc, RECEIPT_TOPIC?: string, TRIBUTARY_TOKEN?: string }} Env
 */
import { WorkerEntrypoint } from "cloudflare:workers";

/** @extends {WorkerEntrypoint<Env>} */
export default class PushExample extends WorkerEntrypoint {
  async fetch() {
    return new Response("Tributary calls deliver(batch) on this Worker over a service binding (README.md)\n");
  }

  /** @param {DeliveryBatch} batch */
  async deliver(batch) {
    /** @type {{ partition: number, offset: number, type: "reject" }[]} */
    const acknowledgements = [];
    const receipts = [];
    for (const record of batch.records) {
      const order = parseOrder(record.value);
      if (order === undefined) {
        acknowledgements.push({ partition: record.partition, offset: record.offset, type: "reject" });
        continue;
      }
      const source = `${batch.topic}/${record.partition}/${record.offset}`;
      receipts.push({ key: order.email, value: JSON.stringify({ email: order.email, item: order.item, order: source }) });
    }
    if (receipts.length > 0) {
      const result = await this.env.TRIBUTARY.produce(this.env.RECEIPT_TOPIC ?? "receipts", { records: receipts }, { token: this.env.TRIBUTARY_TOKEN });
      if (!result.ok) throw new Error(`receipts not written: ${result.error.code} ${result.error.message}`); // the batch comes again
    }
    return { acknowledgements };
  }
}

/**
 * @param {string | null} value
 * @returns {{ email: string, item: string } | undefined}
 */
function parseOrder(value) {
  try {
    const order = JSON.parse(value ?? "");
    return typeof order?.email === "string" && typeof order?.item === "string" ? order : undefined;
  } catch {
    return undefined;
  }
}
