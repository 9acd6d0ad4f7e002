/**
 * Push subscriptions (docs/api.md "Subscriptions"): the list; one subscription's deliveries
 * (delivered, retried, dead-lettered, lag, the last error), its partitions' positions and
 * batches in flight with their delivery counts, its settings; pause, resume, delete.
 */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { ConfirmButton, ErrorMessage, PageHeading, Status, useInterval, useLoad } from "../components/common.tsx";
import { formatCount, formatLocalTime } from "../format.ts";
import { identityMay } from "../identity.ts";
import { routeHref } from "../routes.ts";
import { useIdentity } from "../session-identity.tsx";
import type { Subscription, SubscriptionDescription } from "../types.ts";
import { DeadLetterLink } from "./share-groups.tsx";

const refreshMs = 5_000;
const cluster = "tributary";

function describeTarget(target: Subscription["target"]): string {
  if ("service" in target) return `Worker ${target.service}`;
  return target.secret === undefined ? target.url : `${target.url} (signed)`;
}

function TopicLink(props: { topic: string }) {
  return <a href={routeHref({ page: "topic", topic: props.topic })}>{props.topic}</a>;
}

export function SubscriptionsPage() {
  const subscriptions = useLoad(() => api<{ subscriptions: Subscription[] }>("GET", "/v1/subscriptions"), "subscriptions");
  useInterval(subscriptions.reload, 10_000);
  return (
    <section>
      <PageHeading>Subscriptions</PageHeading>
      <p class="meta">Tributary pushes a topic's records to a webhook or a Worker, in batches, with retries and a dead-letter topic.</p>
      <ErrorMessage error={subscriptions.error} />
      {subscriptions.data === undefined && subscriptions.loading && <Status>Loading subscriptions…</Status>}
      {subscriptions.data !== undefined && (
        <table>
          <caption class="visually-hidden">Subscriptions</caption>
          <thead><tr><th scope="col">Subscription</th><th scope="col">Topic</th><th scope="col">Mode</th><th scope="col">Target</th><th scope="col">State</th><th scope="col">Dead-letter topic</th></tr></thead>
          <tbody>
            {subscriptions.data.subscriptions.length === 0 && <tr><td colSpan={6}>No subscriptions yet.</td></tr>}
            {subscriptions.data.subscriptions.map((subscription) => (
              <tr key={subscription.name}>
                <th scope="row"><a href={routeHref({ page: "subscription", name: subscription.name })}>{subscription.name}</a></th>
                <td><TopicLink topic={subscription.topic} /></td>
                <td>{subscription.mode}</td>
                <td class="target">{describeTarget(subscription.target)}</td>
                <td>{subscription.paused ? <strong>paused</strong> : "delivering"}</td>
                <td><DeadLetterLink topic={subscription.deadLetterTopic} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function SubscriptionPage(props: { name: string }) {
  const identity = useIdentity();
  const subscription = useLoad(() => api<SubscriptionDescription>("GET", path`/v1/subscriptions/${props.name}`), `subscription:${props.name}`);
  useInterval(subscription.reload, refreshMs);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const data = subscription.data;
  if (data === undefined && subscription.error !== undefined) {
    return <section><PageHeading>Subscription {props.name}</PageHeading><ErrorMessage error={subscription.error} /><p><a href={routeHref({ page: "subscriptions" })}>Back to the subscriptions</a></p></section>;
  }
  const setPaused = async (paused: boolean) => {
    setError(undefined);
    try {
      await api("PATCH", path`/v1/subscriptions/${props.name}`, { paused });
      setMessage(paused ? "Paused: no further delivery starts (one under way finishes)." : "Resumed: what accumulated is delivered.");
      subscription.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const remove = async () => {
    try {
      await api("DELETE", path`/v1/subscriptions/${props.name}`);
      location.hash = routeHref({ page: "subscriptions" });
    } catch (caught) {
      setError(caught);
    }
  };
  const mayAlter = data !== undefined && identityMay(identity, "cluster", cluster, "alter") && identityMay(identity, "topic", data.topic, "read");
  return (
    <section>
      <PageHeading>Subscription {props.name}</PageHeading>
      <ErrorMessage error={subscription.error} />
      {data === undefined && <Status>Loading…</Status>}
      {data !== undefined && (
        <>
          <p class="meta">
            <TopicLink topic={data.topic} /> → <span class="target">{describeTarget(data.target)}</span> · {data.mode} · created {formatLocalTime(data.createdAt)}
          </p>
          <p>
            <strong data-testid="subscription-state">{data.paused ? "Paused" : "Delivering"}</strong>{" "}
            {mayAlter && <button type="button" onClick={() => setPaused(!data.paused)}>{data.paused ? "Resume" : "Pause"}</button>}{" "}
            {identityMay(identity, "cluster", cluster, "delete") && <ConfirmButton label="Delete" confirmLabel={`Delete ${props.name}`} question={`Delete subscription ${props.name}? No delivery starts once it is deleted.`} onConfirm={remove} />}
          </p>
          <ErrorMessage error={error} />
          {message !== undefined && <Status>{message}</Status>}
          <h2>Deliveries</h2>
          <DeliveryCounts subscription={data} />
          <h2>Partitions</h2>
          <PartitionTable subscription={data} />
          <h2>Settings</h2>
          <Settings subscription={data} />
        </>
      )}
    </section>
  );
}

function DeliveryCounts(props: { subscription: SubscriptionDescription }) {
  const s = props.subscription;
  return (
    <dl class="facts">
      <dt>Delivered</dt><dd data-testid="delivered">{formatCount(s.delivered, "record")}</dd>
      <dt>Retried</dt><dd data-testid="retried">{formatCount(s.retried, "redelivery", "redeliveries")}</dd>
      <dt>Dead-lettered</dt>
      <dd data-testid="dead-lettered">{formatCount(s.deadLettered, "record")}{s.deadLetterTopic === null ? " (dropped: no dead-letter topic)" : <> → <DeadLetterLink topic={s.deadLetterTopic} /></>}</dd>
      <dt>Lag</dt><dd data-testid="subscription-lag">{formatCount(s.lag, "record")} not yet settled</dd>
      <dt>Last error</dt><dd>{s.lastError === null ? "none" : `${s.lastError}${s.lastErrorAt === null ? "" : ` (${formatLocalTime(s.lastErrorAt)})`}`}</dd>
    </dl>
  );
}

function PartitionTable(props: { subscription: SubscriptionDescription }) {
  const { partitions, mode } = props.subscription;
  return (
    <table>
      <caption class="visually-hidden">Partitions</caption>
      <thead><tr><th scope="col" class="number">Partition</th><th scope="col" class="number">Position</th><th scope="col" class="number">High watermark</th><th scope="col" class="number">Lag</th><th scope="col">In flight</th></tr></thead>
      <tbody>
        {partitions.length === 0 && <tr><td colSpan={5}>No partition positions yet.</td></tr>}
        {partitions.map((p) => (
          <tr key={p.partition}>
            <th scope="row" class="number">{p.partition}</th>
            <td class="number">{p.position}</td>
            <td class="number">{p.highWatermark ?? "—"}</td>
            <td class="number">{p.highWatermark === null ? "—" : Math.max(0, p.highWatermark - p.position)}</td>
            <td>{p.inFlight === null ? (mode === "shared" ? "see the share group" : "nothing") : describeInFlight(p.inFlight)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function describeInFlight(inFlight: NonNullable<SubscriptionDescription["partitions"][number]["inFlight"]>): string {
  const { offsets, deliveryCount, retryAt } = inFlight;
  const range = offsets.length === 0 ? "no offsets" : offsets.length === 1 ? `offset ${offsets[0]}` : `offsets ${offsets[0]}–${offsets.at(-1)}`;
  const retry = retryAt === null ? "" : `, again at ${formatLocalTime(retryAt)}`;
  return `${range}, delivery ${deliveryCount}${retry}`;
}

function Settings(props: { subscription: SubscriptionDescription }) {
  const s = props.subscription;
  const rows: [string, string][] = [
    ["Starts from", s.from],
    ["Batch size", formatCount(s.batchSize, "record")],
    ["Waits for a batch", `${s.maxWaitMs} ms`],
    ["Deliveries at once", String(s.maxInFlight)],
    ["Retry delay (doubled per retry)", `${s.retryDelayMs} ms`],
    ["Delivery limit", formatCount(s.deliveryLimit, "delivery", "deliveries")],
  ];
  return <dl class="facts">{rows.map(([name, value]) => <><dt key={name}>{name}</dt><dd>{value}</dd></>)}</dl>;
}
