/**
 * A Worker push subscriptions deliver to in the workers layer (vitest.config.ts binds it to
 * the Worker under test as PUSH_TARGET): `deliver(batch)` keeps every batch it is given, by
 * subscription, and answers by the subscription's name — "failing-…" throws (retried, then
 * dead-lettered), "rejecting-…" rejects the records whose value starts with "bad", any other
 * accepts. `received(subscription)` answers the batches kept.
 */
import { WorkerEntrypoint } from "cloudflare:workers";

const received = new Map();

export default class PushTarget extends WorkerEntrypoint {
  async fetch() {
    return new Response("a push target: call deliver(batch) over RPC");
  }

  async deliver(batch) {
    const batches = received.get(batch.subscription) ?? [];
    batches.push(batch);
    received.set(batch.subscription, batches);
    if (batch.subscription.startsWith("failing-")) throw new Error("the target is down");
    if (batch.subscription.startsWith("rejecting-")) {
      const rejected = batch.records.filter((record) => record.value.startsWith("bad"));
      return { acknowledgements: rejected.map((record) => ({ partition: record.partition, offset: record.offset, type: "reject" })) };
    }
    return { ok: true };
  }

  async received(subscription) {
    return received.get(subscription) ?? [];
  }
}
