/** Topics: the list with sizes per tier and a records-in sparkline; create and delete. */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { Sparkline } from "../components/chart.tsx";
import { ConfirmButton, ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { describeTopics, listTopics, loadMetrics, missingRatesReason, partitionBytes } from "../data.ts";
import { formatBytes, formatRate, parseConfigLines } from "../format.ts";
import { routeHref } from "../routes.ts";
import { identityMay, identityMayCreateTopics } from "../identity.ts";
import { useIdentity } from "../session-identity.tsx";
import { topicRates } from "../series.ts";
import type { MetricsAnswer, Topic } from "../types.ts";

/** The list refreshes while open, so sizes and rates stay current. */
const refreshMs = 15_000;

export function TopicsPage() {
  const identity = useIdentity();
  const topics = useLoad(async () => {
    const list = await listTopics();
    return { list, described: await describeTopics(list) };
  }, "topics");
  const metrics = useLoad<MetricsAnswer | undefined>(() => loadMetrics(), "metrics");
  useInterval(() => { topics.reload(); metrics.reload(); }, refreshMs);
  const [message, setMessage] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();

  const remove = async (name: string) => {
    setActionError(undefined);
    try {
      await api("DELETE", path`/v1/topics/${name}`);
      setMessage(`Deleted topic ${name}.`);
      topics.reload();
    } catch (error) {
      setActionError(error);
    }
  };

  return (
    <section>
      <PageHeading>Topics</PageHeading>
      {identityMayCreateTopics(identity) && <CreateTopicForm onCreated={(name) => { setMessage(`Created topic ${name}.`); topics.reload(); }} />}
      {message !== undefined && <Status>{message}</Status>}
      <ErrorMessage error={actionError} />
      <ErrorMessage error={topics.error} />
      {topics.data === undefined && topics.loading && <Status>Loading topics…</Status>}
      {metrics.data === undefined && metrics.error !== undefined && <p class="meta">{missingRatesReason(metrics.error)}</p>}
      {topics.data !== undefined && (
        <table>
          <caption class="visually-hidden">Topics</caption>
          <thead>
            <tr><th scope="col">Name</th><th scope="col" class="number">Partitions</th><th scope="col" class="number">Replication factor</th><th scope="col" class="number">SQLite</th><th scope="col" class="number">R2</th><th scope="col">Records in/s (15 min)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {topics.data.list.length === 0 && <tr><td colSpan={7}>{identity.kind === "scoped" || identity.kind === "write" || identity.kind === "read" ? "No topics this token may describe." : "No topics yet."}</td></tr>}
            {topics.data.list.map((summary) => (
              <TopicRow key={summary.name} summary={summary} topic={topics.data!.described.get(summary.name)} metrics={metrics.data} ratesMissing={missingRatesReason(metrics.error)} onDelete={identityMay(identity, "topic", summary.name, "delete") ? remove : undefined} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TopicRow(props: { summary: { name: string; partitions: number; replicationFactor: number }; topic: Topic | undefined; metrics: MetricsAnswer | undefined; ratesMissing: string; onDelete: ((name: string) => Promise<void>) | undefined }) {
  const { summary } = props;
  const bytes = partitionBytes(props.topic);
  const rates = topicRates(props.metrics, summary.name).recordsInPerSecond;
  return (
    <tr>
      <th scope="row"><a href={routeHref({ page: "topic", topic: summary.name })}>{summary.name}</a></th>
      <td class="number">{summary.partitions}</td>
      <td class="number">{summary.replicationFactor}</td>
      <td class="number">{bytes === undefined ? "—" : formatBytes(bytes.sqlite)}</td>
      <td class="number">{bytes === undefined ? "—" : formatBytes(bytes.r2)}</td>
      <td>
        {props.metrics === undefined ? <span title={props.ratesMissing}>—</span> : (
          <span class="rate">
            <Sparkline values={rates} label={`records in per second over 15 minutes for ${summary.name}`} />
            {" "}{formatRate(rates.at(-1) ?? 0)}
          </span>
        )}
      </td>
      <td class="actions">
        <a href={routeHref({ page: "messages", topic: summary.name })}>Messages</a>{" "}
        {props.onDelete !== undefined && <ConfirmButton label="Delete" confirmLabel={`Delete ${summary.name}`} question={`Delete topic ${summary.name} and all its records?`} onConfirm={() => props.onDelete!(summary.name)} />}
      </td>
    </tr>
  );
}

function CreateTopicForm(props: { onCreated: (name: string) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const configs = parseConfigLines(String(fields.get("configs") ?? ""));
    if ("error" in configs) return setError(new Error(configs.error));
    const name = String(fields.get("name") ?? "");
    setBusy(true);
    setError(undefined);
    try {
      await api("POST", "/v1/topics", {
        name,
        partitions: Number(fields.get("partitions")),
        replicationFactor: Number(fields.get("replicationFactor")),
        configs: configs.configs,
      });
      form.reset();
      props.onCreated(name);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="panel">
      <summary>Create a topic</summary>
      <form onSubmit={submit} class="grid-form" aria-label="Create a topic">
        <label>Name <input name="name" required autoComplete="off" /></label>
        <label>Partitions <input name="partitions" type="number" min={1} defaultValue="1" required /></label>
        <label>Replication factor <input name="replicationFactor" type="number" min={1} defaultValue="1" required /></label>
        <label class="wide">Configs, one <code>name=value</code> a line <textarea name="configs" rows={3} placeholder="retention.ms=86400000" /></label>
        <div class="wide"><button type="submit" disabled={busy}>Create topic</button></div>
        <ErrorMessage error={error} />
      </form>
    </details>
  );
}
