/** One topic: partitions (leader, replicas, ISR, offsets, bytes per tier), rates chart, configs. */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { TimeChart } from "../components/chart.tsx";
import { ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { loadMetrics, missingRatesReason } from "../data.ts";
import { formatBytes, formatCount } from "../format.ts";
import { routeHref } from "../routes.ts";
import { topicRates } from "../series.ts";
import type { MetricsAnswer, PartitionInfo, Topic } from "../types.ts";

const refreshMs = 10_000;

export function TopicPage(props: { topic: string }) {
  const topic = useLoad(() => api<Topic>("GET", path`/v1/topics/${props.topic}`), `topic:${props.topic}`);
  const metrics = useLoad<MetricsAnswer | undefined>(() => loadMetrics(), "metrics");
  useInterval(() => { topic.reload(); metrics.reload(); }, refreshMs);
  const rates = topicRates(metrics.data, props.topic);
  return (
    <section>
      <PageHeading>Topic {props.topic}</PageHeading>
      <p><a href={routeHref({ page: "messages", topic: props.topic })}>Browse and produce messages</a></p>
      <ErrorMessage error={topic.error} />
      {topic.data === undefined && topic.loading && <Status>Loading…</Status>}
      {topic.data !== undefined && (
        <>
          <p class="meta">Topic id <code>{topic.data.topicId}</code> · replication factor {topic.data.replicationFactor}</p>
          <h2>Partitions</h2>
          <PartitionTable partitions={topic.data.partitions} />
        </>
      )}
      <h2>Throughput</h2>
      {metrics.data === undefined ? (
        <p class="meta">{missingRatesReason(metrics.error)}</p>
      ) : (
        <TimeChart
          title="Records per second, last 15 minutes (one-minute buckets)"
          unit="rec/s"
          times={rates.times}
          series={[
            { label: "in", values: rates.recordsInPerSecond, colorVar: "--series-1" },
            { label: "out", values: rates.recordsOutPerSecond, colorVar: "--series-2" },
          ]}
        />
      )}
      {topic.data !== undefined && <ConfigEditor topic={topic.data} onChanged={topic.reload} />}
    </section>
  );
}

function PartitionTable(props: { partitions: PartitionInfo[] }) {
  return (
    <table>
      <thead>
        <tr><th scope="col" class="number">Partition</th><th scope="col">Leader region</th><th scope="col">Replicas</th><th scope="col">ISR</th><th scope="col" class="number">Log start</th><th scope="col" class="number">High watermark</th><th scope="col" class="number">SQLite</th><th scope="col" class="number">R2</th></tr>
      </thead>
      <tbody>
        {props.partitions.map((partition) => {
          const underReplicated = partition.isr.length < partition.replicas.length;
          return (
            <tr key={partition.partition} class={underReplicated ? "warning" : undefined}>
              <th scope="row" class="number">{partition.partition}</th>
              <td>{partition.leader}</td>
              <td>{partition.replicas.join(", ")}</td>
              <td>
                {partition.isr.join(", ")}
                {underReplicated && <span class="badge warn"> under-replicated (missing {partition.replicas.filter((r) => !partition.isr.includes(r)).join(", ")})</span>}
              </td>
              <td class="number">{partition.logStartOffset}</td>
              <td class="number">{partition.highWatermark}</td>
              <td class="number">{partition.storage === undefined ? "—" : `${formatBytes(partition.storage.sqliteBytes)} (${formatCount(partition.storage.sqliteBatches, "batch", "batches")})`}</td>
              <td class="number">{partition.storage === undefined ? "—" : `${formatBytes(partition.storage.r2Bytes)} (${formatCount(partition.storage.r2Segments, "segment")})`}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Configs: every effective value, overrides marked; set one or restore its default (PATCH …/configs). */
function ConfigEditor(props: { topic: Topic; onChanged: () => void }) {
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const overrides = new Set(props.topic.configOverrides ?? []);
  const names = Object.keys(props.topic.configs).sort();
  const patch = async (configs: Record<string, string | null>, done: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await api("PATCH", path`/v1/topics/${props.topic.name}/configs`, { configs });
      setMessage(done);
      props.onChanged();
    } catch (caught) {
      setError(caught);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const name = String(fields.get("name"));
    void patch({ [name]: String(fields.get("value")) }, `Set ${name}.`);
  };
  return (
    <>
      <h2>Configs</h2>
      <form onSubmit={submit} class="inline-form" aria-label="Set a config">
        <label>Config <select name="name">{names.map((name) => <option key={name} value={name}>{name}</option>)}</select></label>
        <label>Value <input name="value" required autoComplete="off" /></label>
        <button type="submit">Set config</button>
      </form>
      <ErrorMessage error={error} />
      {message !== undefined && <Status>{message}</Status>}
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">Value</th><th scope="col">Source</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {names.map((name) => (
            <tr key={name}>
              <th scope="row"><code>{name}</code></th>
              <td><code>{props.topic.configs[name]}</code></td>
              <td>{overrides.has(name) ? <strong>set on topic</strong> : "default"}</td>
              <td>{overrides.has(name) && <button type="button" onClick={() => patch({ [name]: null }, `Restored the default of ${name}.`)}>Restore default<span class="visually-hidden"> of {name}</span></button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
