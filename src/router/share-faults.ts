import { unwrap } from "../errors.ts";
import { shareFaultGroupsAtOnceMax } from "../limits.ts";
import type { Fault } from "../contracts/faults.ts";
import { shareGroupIndexStub, shareGroupStub, sharePartitionStub } from "../contracts/stubs.ts";

/**
 * Fault injection (docs/api.md, "Fault injection") for share-partition state: a fault set on a
 * partition's replica in a region is set on the share-partition state replicas of every share
 * group in that region too, so a region that is `down` loses its log replica and its share
 * state together, as a lost region would. It reaches the share-partitions that exist when the
 * fault is set (those registered with their groups), and lasts, as the replica's, until the
 * next fault or the object's restart. Only with TRIBUTARY_FAULTS=1 (the route checks).
 */
export async function setShareStateFaults(env: Env, topicId: string, partition: number, region: string, fault: Fault, ms: number): Promise<void> {
  const groups = unwrap(await shareGroupIndexStub(env).list());
  for (let start = 0; start < groups.length; start += shareFaultGroupsAtOnceMax) {
    await Promise.all(
      groups.slice(start, start + shareFaultGroupsAtOnceMax).map(async (group) => {
        const view = await shareGroupStub(env, group).view(group);
        if (!view.ok) return; // deleted meanwhile
        const refs = view.value.partitions.filter((ref) => ref.topicId === topicId && ref.partition === partition);
        await Promise.all(refs.map(async (ref) => unwrap(await sharePartitionStub(env, { ...ref, region }).setFault(fault, ms))));
      }),
    );
  }
}
