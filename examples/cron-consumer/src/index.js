// @ts-check
/**
 * A Worker that consumes on a cron trigger, as a member of a consumer group, over Tributary's
 * service binding (src/service.ts): each run joins the group, polls until nothing is left
 * (bounded), writes one digest record per run to another topic, commits, and leaves.
 *
 * At least once: polls send positions back (where to continue) with autoCommit off, and the
 * last positions are committed only after the digest was written; a run that dies midway
 * commits nothing, and the next run counts those records again.
 *
 * @typedef {import("../../../src/protocol/rpc.ts").TributaryRpc} TributaryRpc
 * @typedef {{ TRIBUTARY: TributaryRpc, SOURCE_TOPIC?: string, DIGEST_TOPIC?: string, GROUP?: string, TRIBUTARY_TOKEN?: string }} Env
 * @typedef {{ topic: string, partition: number, offset: number }} Position
 */

/** Polls per run: a run ends in bounded time even while records keep coming. */
const pollsPerRunMax = 20;

/**
 * @template T
 * @param {{ ok: true, value: T } | { ok: false, error: { code: string, message: string } }} result
 * @returns {T}
 */
function unwrap(result) {
  if (result.ok) return result.value;
  throw new Error(`${result.error.code}: ${result.error.message}`);
}

/**
 * One run: what the cron trigger does.
 * @param {Env} env
 * @returns {Promise<{ records: number, byKey: Record<string, number> }>}
 */
export async function digest(env) {
  const options = { token: env.TRIBUTARY_TOKEN };
  const group = env.GROUP ?? "digest";
  const source = env.SOURCE_TOPIC ?? "requests";
  const joined = /** @type {{ memberId: string, memberEpoch: number }} */ (
    unwrap(await env.TRIBUTARY.joinGroup(group, { topics: [source], autoOffsetReset: "earliest", sessionTimeoutMs: 30_000 }, options))
  );
  let memberEpoch = joined.memberEpoch;
  /** @type {Position[]} */
  let positions = [];
  /** @type {Record<string, number>} */
  const byKey = {};
  let records = 0;
  try {
    for (let poll = 0; poll < pollsPerRunMax; poll++) {
      // Where to continue; nothing is committed before the digest is written.
      const answer = /** @type {{ memberEpoch: number, records: { key: string | null }[], positions: Position[] }} */ (
        unwrap(await env.TRIBUTARY.poll(group, joined.memberId, { memberEpoch, positions, autoCommit: false, maxRecords: 1000, waitMs: 0 }, options))
      );
      memberEpoch = answer.memberEpoch;
      for (const record of answer.records) byKey[record.key ?? "(no key)"] = (byKey[record.key ?? "(no key)"] ?? 0) + 1;
      records += answer.records.length;
      positions = answer.positions;
      if (answer.records.length === 0) break;
    }
    const value = JSON.stringify({ records, byKey, at: Date.now() });
    unwrap(await env.TRIBUTARY.produce(env.DIGEST_TOPIC ?? "digests", { records: [{ key: group, value }] }, options));
    unwrap(await env.TRIBUTARY.commitOffsets(group, { memberId: joined.memberId, memberEpoch, offsets: positions }, options));
  } finally {
    await env.TRIBUTARY.leaveGroup(group, joined.memberId, options);
  }
  return { records, byKey };
}

export default {
  /**
   * @param {ScheduledController} controller
   * @param {Env} env
   */
  async scheduled(controller, env) {
    const { records } = await digest(env);
    console.log(`digest (${controller.cron}): ${records} records`);
  },
};
