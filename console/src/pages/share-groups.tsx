/**
 * Share groups (KIP-932, docs/api.md "Share groups"): the list with each group's records
 * waiting, locked and archived; one group's share-partitions (start, end, available,
 * acquired, archived), its configs (delivery limit, lock, dead-letter topic), reset, delete.
 */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { ConfigEditor } from "../components/config-editor.tsx";
import { ConfirmButton, ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { ResetOffsetsForm } from "../components/reset-offsets.tsx";
import { describeEach } from "../data.ts";
import { identityMay } from "../identity.ts";
import { routeHref } from "../routes.ts";
import { useIdentity } from "../session-identity.tsx";
import type { ShareGroupDescription, ShareGroupSummary, SharePartitionState } from "../types.ts";

const refreshMs = 5_000;

/** Records waiting, locked and archived, summed over a group's share-partitions. */
export function shareTotals(partitions: readonly SharePartitionState[]): { available: number; acquired: number; archived: number } {
  return partitions.reduce((sum, p) => ({ available: sum.available + p.available, acquired: sum.acquired + p.acquired, archived: sum.archived + p.archived }), { available: 0, acquired: 0, archived: 0 });
}

/** A dead-letter topic as a link to its records, or "none". */
export function DeadLetterLink(props: { topic: string | null | undefined }) {
  if (!props.topic) return <span class="meta">none</span>;
  return <a href={routeHref({ page: "messages", topic: props.topic })}>{props.topic}</a>;
}

export function ShareGroupsPage() {
  const groups = useLoad(async () => {
    const list = (await api<{ groups: ShareGroupSummary[] }>("GET", "/v1/share-groups")).groups;
    return { list, described: await describeEach(list.map((entry) => entry.group), (group) => api<ShareGroupDescription>("GET", path`/v1/share-groups/${group}`)) };
  }, "share-groups");
  useInterval(groups.reload, 10_000);
  return (
    <section>
      <PageHeading>Share groups</PageHeading>
      <p class="meta">Queues over a topic: consumers share its partitions, each record acknowledged on its own and redelivered when it fails, up to the group's delivery limit.</p>
      <ErrorMessage error={groups.error} />
      {groups.data === undefined && groups.loading && <Status>Loading share groups…</Status>}
      {groups.data !== undefined && (
        <table>
          <caption class="visually-hidden">Share groups</caption>
          <thead><tr><th scope="col">Share group</th><th scope="col" class="number">Partitions</th><th scope="col" class="number">Available</th><th scope="col" class="number">Acquired</th><th scope="col" class="number">Archived</th><th scope="col">Dead-letter topic</th></tr></thead>
          <tbody>
            {groups.data.list.length === 0 && <tr><td colSpan={6}>No share groups yet: one starts with its first fetch.</td></tr>}
            {groups.data.list.map(({ group }) => {
              const described = groups.data!.described.get(group);
              const totals = described === undefined ? undefined : shareTotals(described.partitions);
              return (
                <tr key={group}>
                  <th scope="row"><a href={routeHref({ page: "share-group", group })}>{group}</a></th>
                  <td class="number">{described?.partitions.length ?? "—"}</td>
                  <td class="number">{totals?.available ?? "—"}</td>
                  <td class="number">{totals?.acquired ?? "—"}</td>
                  <td class="number">{totals?.archived ?? "—"}</td>
                  <td>{described === undefined ? "—" : <DeadLetterLink topic={described.configs["dead.letter.topic"]} />}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function ShareGroupPage(props: { group: string }) {
  const identity = useIdentity();
  const group = useLoad(() => api<ShareGroupDescription>("GET", path`/v1/share-groups/${props.group}`), `share-group:${props.group}`);
  useInterval(group.reload, refreshMs);
  const [error, setError] = useState<unknown>();
  const data = group.data;
  if (data === undefined && group.error !== undefined) {
    return <section><PageHeading>Share group {props.group}</PageHeading><ErrorMessage error={group.error} /><p><a href={routeHref({ page: "share-groups" })}>Back to the share groups</a></p></section>;
  }
  const remove = async () => {
    try {
      await api("DELETE", path`/v1/share-groups/${props.group}`);
      location.hash = routeHref({ page: "share-groups" });
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section>
      <PageHeading>Share group {props.group}</PageHeading>
      <ErrorMessage error={group.error} />
      {data === undefined && <Status>Loading…</Status>}
      {data !== undefined && (
        <>
          <p class="meta">
            A record is delivered at most <strong data-testid="delivery-limit">{data.configs["delivery.count.limit"]}</strong> times, each lock lasting {Number(data.configs["record.lock.duration.ms"]) / 1000} s;
            {" "}dead letters go to <DeadLetterLink topic={data.configs["dead.letter.topic"]} />.
          </p>
          <h2>Share-partitions</h2>
          <SharePartitionTable partitions={data.partitions} />
          <ConfigEditor configs={data.configs} patchPath={path`/v1/share-groups/${props.group}/configs`} mayAlter={identityMay(identity, "group", props.group, "alter")} onChanged={group.reload} />
          {identityMay(identity, "group", props.group, "read") && (
            <>
              <h2>Reset offsets</h2>
              <p class="meta">Moves where the group's partitions of a topic start; refused while any record is acquired. A dry run shows the plan.</p>
              <ResetOffsetsForm resetPath={path`/v1/share-groups/${props.group}/offsets/reset`} topics={[...new Set(data.partitions.map((p) => p.topic))]} resetEnabled onChanged={group.reload} />
            </>
          )}
          <ErrorMessage error={error} />
          {identityMay(identity, "group", props.group, "delete") && (
            <p><ConfirmButton label="Delete share group" confirmLabel={`Delete ${props.group}`} question={`Delete share group ${props.group} and its state?`} onConfirm={remove} /></p>
          )}
        </>
      )}
    </section>
  );
}

function SharePartitionTable(props: { partitions: SharePartitionState[] }) {
  if (props.partitions.length === 0) return <p class="meta">No share-partitions yet: the group has fetched from none.</p>;
  const totals = shareTotals(props.partitions);
  return (
    <table>
      <caption class="visually-hidden">Share-partitions</caption>
      <thead><tr><th scope="col">Topic</th><th scope="col" class="number">Partition</th><th scope="col" class="number">Start</th><th scope="col" class="number">End</th><th scope="col" class="number">Available</th><th scope="col" class="number">Acquired</th><th scope="col" class="number">Archived</th></tr></thead>
      <tbody>
        {props.partitions.map((p) => (
          <tr key={`${p.topic}:${p.partition}`}>
            <th scope="row"><a href={routeHref({ page: "topic", topic: p.topic })}>{p.topic}</a></th>
            <td class="number">{p.partition}</td>
            <td class="number">{p.startOffset}</td>
            <td class="number">{p.endOffset}</td>
            <td class="number" data-testid={`available-${p.topic}-${p.partition}`}>{p.available}</td>
            <td class="number" data-testid={`acquired-${p.topic}-${p.partition}`}>{p.acquired}</td>
            <td class="number" data-testid={`archived-${p.topic}-${p.partition}`}>{p.archived}</td>
          </tr>
        ))}
      </tbody>
      <tfoot><tr><th scope="row" colSpan={4}>Total</th><td class="number">{totals.available}</td><td class="number">{totals.acquired}</td><td class="number">{totals.archived}</td></tr></tfoot>
    </table>
  );
}
