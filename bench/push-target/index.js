// @ts-check
/**
 * The benchmark's push target (bench/push.ts): a Worker whose deliver(batch) accepts every
 * batch at once, so that the figure is Tributary's side of a push — read, call, settle.
 */
import { WorkerEntrypoint } from "cloudflare:workers";

export default class BenchPushTarget extends WorkerEntrypoint {
  async fetch() {
    return new Response("the benchmark's push target: deliver(batch) over RPC\n");
  }

  /** @param {{ records: unknown[] }} batch */
  async deliver(batch) {
    return { accepted: batch.records.length };
  }
}
