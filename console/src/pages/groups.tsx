/** Consumer groups: the list; one group's members, epochs, assignments, lag table and lag chart; reset. */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { TimeChart } from "../components/chart.tsx";
import { ConfirmButton, ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { ResetOffsetsForm } from "../components/reset-offsets.tsx";
import { formatLocalTime } from "../format.ts";
import { routeHref } from "../routes.ts";
import { identityMay } from "../identity.ts";
import { appendSample, chartWindowSeconds, totalLag } from "../series.ts";
import { useIdentity } from "../session-identity.tsx";
import type { Group, GroupOffset, GroupSummary } from "../types.ts";

/** How often an open group page samples its offsets for the lag chart. */
const lagSampleMs = 5_000;
/** Samples kept: the chart's window (15 minutes) at one per 5 s. */
const lagSamplesMax = chartWindowSeconds / (lagSampleMs / 1000);

export function GroupsPage() {
  const groups = useLoad(() => api<{ groups: GroupSummary[] }>("GET", "/v1/groups"), "groups");
  useInterval(groups.reload, 10_000);
  return (
    <section>
      <PageHeading>Consumer groups</PageHeading>
      <ErrorMessage error={groups.error} />
      {groups.data === undefined && groups.loading && <Status>Loading groups…</Status>}
      {groups.data !== undefined && (
        <table>
          <thead><tr><th scope="col">Group</th><th scope="col">State</th><th scope="col" class="number">Members</th></tr></thead>
          <tbody>
            {groups.data.groups.length === 0 && <tr><td colSpan={3}>No groups yet.</td></tr>}
            {groups.data.groups.map((group) => (
              <tr key={group.group}>
                <th scope="row"><a href={routeHref({ page: "group", group: group.group })}>{group.group}</a></th>
                <td>{group.state}</td>
                <td class="number">{group.members}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="meta">Share groups (queues over a topic) and push subscriptions have pages of their own: <a href={routeHref({ page: "share-groups" })}>share groups</a>, <a href={routeHref({ page: "subscriptions" })}>subscriptions</a>.</p>
    </section>
  );
}

export function GroupPage(props: { group: string }) {
  const group = useLoad(() => api<Group>("GET", path`/v1/groups/${props.group}`), `group:${props.group}`);
  const [offsets, setOffsets] = useState<GroupOffset[]>();
  const [offsetsError, setOffsetsError] = useState<unknown>();
  const [samples, setSamples] = useState<[number, number][]>([]);
  const sample = async () => {
    try {
      const answer = await api<{ offsets: GroupOffset[] }>("GET", path`/v1/groups/${props.group}/offsets`);
      setOffsets(answer.offsets);
      setOffsetsError(undefined);
      setSamples((previous) => appendSample(previous, [Date.now() / 1000, totalLag(answer.offsets)], lagSamplesMax));
    } catch (caught) {
      setOffsetsError(caught);
    }
  };
  useLoad(sample, `offsets:${props.group}`);
  useInterval(() => { void sample(); group.reload(); }, lagSampleMs);
  const data = group.data;
  return (
    <section>
      <PageHeading>Group {props.group}</PageHeading>
      <ErrorMessage error={group.error} />
      {data !== undefined && (
        <>
          <p class="meta">State <strong data-testid="group-state">{data.state}</strong> · assignor {data.assignor} · {data.members.length} member{data.members.length === 1 ? "" : "s"}</p>
          <h2>Members</h2>
          <MemberTable group={data} />
        </>
      )}
      <h2>Lag</h2>
      <ErrorMessage error={offsetsError} />
      {offsets !== undefined && <LagTable offsets={offsets} />}
      <TimeChart
        title="Total lag, last 15 minutes (sampled every 5 s while this page is open)"
        unit="records"
        times={samples.map(([time]) => time)}
        series={[{ label: "total lag", values: samples.map(([, lag]) => lag), colorVar: "--series-1" }]}
      />
      {data !== undefined && <GroupActions group={data} topics={[...new Set((offsets ?? []).map((row) => row.topic))]} onChanged={() => { group.reload(); void sample(); }} />}
    </section>
  );
}

function MemberTable(props: { group: Group }) {
  if (props.group.members.length === 0) return <p class="meta">No members: the group is empty.</p>;
  return (
    <table>
      <thead><tr><th scope="col">Member</th><th scope="col" class="number">Epoch</th><th scope="col">Client id</th><th scope="col">Host</th><th scope="col">Last heartbeat</th><th scope="col">Assignment</th></tr></thead>
      <tbody>
        {props.group.members.map((member) => (
          <tr key={member.memberId}>
            <th scope="row"><code>{member.memberId}</code></th>
            <td class="number">{member.memberEpoch}</td>
            <td>{member.clientId ?? "—"}</td>
            <td>{member.host ?? "—"}</td>
            <td>{formatLocalTime(member.lastHeartbeatAt)}</td>
            <td>{member.assignment.length === 0 ? "nothing" : member.assignment.map((entry) => `${entry.topic}: ${entry.partitions.join(", ")}`).join("; ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LagTable(props: { offsets: GroupOffset[] }) {
  return (
    <table>
      <thead><tr><th scope="col">Topic</th><th scope="col" class="number">Partition</th><th scope="col" class="number">Committed</th><th scope="col" class="number">High watermark</th><th scope="col" class="number">Lag</th></tr></thead>
      <tbody>
        {props.offsets.map((row) => (
          <tr key={`${row.topic}:${row.partition}`}>
            <th scope="row">{row.topic}</th>
            <td class="number">{row.partition}</td>
            <td class="number">{row.offset ?? "none"}</td>
            <td class="number">{row.highWatermark}</td>
            <td class="number" data-testid={`lag-${row.topic}-${row.partition}`}>{row.lag ?? "—"}</td>
          </tr>
        ))}
      </tbody>
      <tfoot><tr><th scope="row" colSpan={4}>Total lag</th><td class="number" data-testid="total-lag">{totalLag(props.offsets)}</td></tr></tfoot>
    </table>
  );
}

/**
 * Reset offsets (empty groups only, as the API says) with a dry run first; delete an empty
 * group. Offered only to a token that may: `read` on the group resets, `delete` deletes.
 */
function GroupActions(props: { group: Group; topics: string[]; onChanged: () => void }) {
  const identity = useIdentity();
  const [error, setError] = useState<unknown>();
  const empty = props.group.state === "Empty";
  const name = props.group.group;
  const remove = async () => {
    try {
      await api("DELETE", path`/v1/groups/${name}`);
      location.hash = routeHref({ page: "groups" });
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <>
      {identityMay(identity, "group", name, "read") && (
        <>
          <h2>Reset offsets</h2>
          {!empty && <p class="meta">A reset needs an empty group (its members gone); a dry run shows the plan at any time.</p>}
          <ResetOffsetsForm resetPath={path`/v1/groups/${name}/offsets/reset`} topics={props.topics} resetEnabled={empty} onChanged={props.onChanged} />
        </>
      )}
      <ErrorMessage error={error} />
      {empty && identityMay(identity, "group", name, "delete") && <p><ConfirmButton label="Delete group" confirmLabel={`Delete ${name}`} question={`Delete group ${name} and its committed offsets?`} onConfirm={remove} /></p>}
    </>
  );
}
