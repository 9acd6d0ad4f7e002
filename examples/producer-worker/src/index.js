// @ts-check
/**
 * A Worker that produces one record per request to Tributary over the service binding's RPC
 * (src/service.ts): no HTTP hop, and errors come back as values, `{ ok: false, error: { code,
 * message, data } }`, with API.md's codes. Plain JavaScript so that it runs as it is, in
 * `wrangler dev` and in the workerd tests (test/examples).
 *
 * @typedef {import("../../../src/protocol/rpc.ts").TributaryRpc} TributaryRpc
 * @typedef {{ TRIBUTARY: TributaryRpc, TOPIC?: string, TRIBUTARY_TOKEN?: string }} Env
 */

/** Retriable codes (API.md's 429 and 503): tell the caller to come back. */
const retriable = new Set(["THROTTLING_QUOTA_EXCEEDED", "NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER", "LEADER_NOT_AVAILABLE", "REQUEST_TIMED_OUT", "BROKER_BUSY"]);

export default {
  /**
   * @param {Request} request
   * @param {Env} env
   */
  async fetch(request, env) {
    const url = new URL(request.url);
    const record = {
      key: url.pathname,
      value: JSON.stringify({ method: request.method, path: url.pathname, at: Date.now() }),
      headers: { "user-agent": request.headers.get("user-agent") ?? "" },
    };
    const result = await env.TRIBUTARY.produce(env.TOPIC ?? "requests", { records: [record] }, { token: env.TRIBUTARY_TOKEN });
    if (!result.ok) {
      const status = retriable.has(result.error.code) ? 503 : 502;
      return Response.json({ error: result.error }, { status });
    }
    return Response.json(result.value); // { offsets: [{ partition, offset, timestamp }] }
  },
};
