/** One topic: partitions (leader, replicas, ISR, offsets, bytes per tier), rates chart, configs. */
import { api, path } from "../api.ts";
import { TimeChart } from "../components/chart.tsx";
import { ConfigEditor } from "../components/config-editor.tsx";
import { ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { loadMetrics, missingRatesReason } from "../data.ts";
import { formatBytes, formatCount } from "../format.ts";
import { identityMay } from "../identity.ts";
import { routeHref } from "../routes.ts";
import { topicRates } from "../series.ts";
import { useIdentity } from "../session-identity.tsx";
import type { MetricsAnswer, PartitionInfo, Topic } from "../types.ts";

const refreshMs = 10_000;

export function TopicPage(props: { topic: string }) {
  const identity = useIdentity();
  const topic = useLoad(() => api<Topic>("GET", path`/v1/topics/${props.topic}`), `topic:${props.topic}`);
  const metrics = useLoad<MetricsAnswer | undefined>(() => loadMetrics(), "metrics");
  useInterval(() => { topic.reload(); metrics.reload(); }, refreshMs);
  const rates = topicRates(metrics.data, props.topic);
  // A topic that is not there (or not this token's to see) has nothing else to show: only the API's answer.
  if (topic.data === undefined && topic.error !== undefined) {
    return <section><PageHeading>Topic {props.topic}</PageHeading><ErrorMessage error={topic.error} /><p><a href={routeHref({ page: "topics" })}>Back to the topics</a></p></section>;
  }
  return (
    <section>
      <PageHeading>Topic {props.topic}</PageHeading>
      <ErrorMessage error={topic.error} />
      {topic.data === undefined && topic.loading && <Status>Loading…</Status>}
      {topic.data !== undefined && (
        <>
          <p><a href={routeHref({ page: "messages", topic: props.topic })}>Browse and produce messages</a></p>
          <p class="meta">Topic id <code>{topic.data.topicId}</code> · replication factor {topic.data.replicationFactor}</p>
          <h2>Partitions</h2>
          <PartitionTable partitions={topic.data.partitions} />
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
          <ConfigEditor
            configs={topic.data.configs}
            overrides={topic.data.configOverrides ?? []}
            patchPath={path`/v1/topics/${props.topic}/configs`}
            mayAlter={identityMay(identity, "topic", props.topic, "alter")}
            onChanged={topic.reload}
          />
        </>
      )}
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
