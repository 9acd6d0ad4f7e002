/** The message browser: read a partition or all, from an offset / timestamp / the latest; live tail; produce. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, authHeaders, path } from "../api.ts";
import { ErrorMessage, PageHeading, Status } from "../components/common.tsx";
import { base64ToBytes, formatLocalTime, renderDecoded, renderPayload, utf8OrNull, type PayloadView } from "../format.ts";
import { identityMay } from "../identity.ts";
import { fetchPartition, keyMatches, mergeRecords, orderFor, shownRecordsMax, startOffset, type ShownRecord, type StartFrom } from "../record-reads.ts";
import { routeHref } from "../routes.ts";
import { useIdentity } from "../session-identity.tsx";
import { readEventStream } from "../sse.ts";
import type { FetchedRecord, Topic } from "../types.ts";
import { ProduceForm } from "./produce-form.tsx";

/** Records read per partition by one load; "Latest 50" shows the newest 50 of them over all partitions. */
const readCount = 50;

interface Query {
  partition: "all" | number;
  from: StartFrom;
}

export function MessagesPage(props: { topic: string }) {
  const identity = useIdentity();
  const [topic, setTopic] = useState<Topic>();
  const [topicError, setTopicError] = useState<unknown>();
  const [query, setQuery] = useState<Query>({ partition: "all", from: { kind: "latest" } });
  const [records, setRecords] = useState<ShownRecord[]>([]);
  const positions = useRef(new Map<number, number>());
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState<string>();
  const [view, setView] = useState<PayloadView>("text");
  const [keyFilter, setKeyFilter] = useState("");
  const [live, setLive] = useState(false);
  /** Values shown decoded by their schemas: the reads ask for decode=schema (docs/api.md, Reading decoded). */
  const decoding = view === "schema";

  const load = async (next: Query) => {
    setError(undefined);
    setStatus("Reading…");
    let described: Topic;
    try {
      described = await api<Topic>("GET", path`/v1/topics/${props.topic}`);
      setTopic(described);
      setTopicError(undefined);
    } catch (caught) {
      setTopicError(caught);
      setStatus(undefined);
      return;
    }
    try {
      const partitions = described.partitions.filter((p) => next.partition === "all" || p.partition === next.partition);
      positions.current = new Map();
      const reads = await Promise.all(partitions.map(async (partition) => {
        const offset = await startOffset(props.topic, partition, next.from, readCount);
        if (offset >= partition.highWatermark) return { partition: partition.partition, records: [], nextOffset: offset };
        return { partition: partition.partition, ...(await fetchPartition(props.topic, partition.partition, offset, readCount, partition.leader, decoding)) };
      }));
      for (const read of reads) positions.current.set(read.partition, read.nextOffset);
      const read = reads.flatMap((entry) => entry.records);
      const merged = mergeRecords([], read, orderFor(next.from), next.from.kind === "latest" ? readCount : shownRecordsMax);
      setRecords(merged);
      setStatus(merged.length < read.length ? `The newest ${merged.length} of ${read.length} records read, newest first.` : `${merged.length} record${merged.length === 1 ? "" : "s"} read.`);
    } catch (caught) {
      setError(caught);
      setStatus(undefined);
    }
  };

  /** Reads on from where each partition stopped. */
  const readMore = async () => {
    try {
      const leaders = new Map(topic?.partitions.map((p) => [p.partition, p.leader]));
      const reads = await Promise.all([...positions.current].map(async ([partition, offset]) => ({ partition, ...(await fetchPartition(props.topic, partition, offset, readCount, leaders.get(partition), decoding)) })));
      for (const read of reads) positions.current.set(read.partition, read.nextOffset);
      const more = reads.flatMap((read) => read.records);
      setRecords((shown) => mergeRecords(shown, more, orderFor(query.from)));
      setStatus(`${more.length} more record${more.length === 1 ? "" : "s"} read.`);
    } catch (caught) {
      setError(caught);
    }
  };

  // Decoding or not is a different read: switching reads again.
  useEffect(() => { void load(query); }, [props.topic, decoding]);

  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    const partition = query.partition;
    const decode = decoding ? "&decode=schema" : "";
    const url = partition === "all"
      ? `${path`/v1/topics/${props.topic}/records`}?offset=latest&encoding=base64${decode}`
      : `${path`/v1/topics/${props.topic}/partitions/${partition}/records`}?offset=${positions.current.get(partition) ?? "latest"}&encoding=base64${decode}`;
    setStatus("Live: waiting for records…");
    readEventStream(url, authHeaders(), controller.signal, {
      // The stream's start is fixed once it answers: read what came before it since the last read.
      onOpen: () => (partition === "all" ? readMore() : Promise.resolve()),
      onEvent: (event) => {
        if (event.event === "error") return setError(new Error(`stream ended: ${event.data}`));
        if (event.event !== "records") return;
        const data = JSON.parse(event.data) as { records: FetchedRecord[]; nextOffset?: number };
        const arrived = data.records.map((record) => ({ ...record, partition: record.partition ?? (partition as number) }));
        setRecords((shown) => mergeRecords(shown, arrived, orderFor(query.from)));
        setStatus(`Live: ${arrived.length} record${arrived.length === 1 ? "" : "s"} arrived at ${formatLocalTime(Date.now())}.`);
      },
    }).then(
      () => { if (!controller.signal.aborted) { setLive(false); setStatus("The server ended the live stream (it does after 5 minutes): start it again."); } },
      (caught: unknown) => { if (!controller.signal.aborted) { setLive(false); setError(caught); } },
    );
    return () => controller.abort();
  }, [live, props.topic, query.partition, decoding]);

  const submit = (event: Event) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const partition = String(fields.get("partition"));
    const kind = String(fields.get("from"));
    const at = String(fields.get("at") ?? "");
    const from: StartFrom = kind === "offset" ? { kind, offset: Number(at) }
      : kind === "timestamp" ? { kind, timestamp: new Date(at).getTime() }
      : { kind: kind === "earliest" ? "earliest" : "latest" };
    if (from.kind === "offset" && !Number.isInteger(from.offset)) return setError(new Error("the offset must be an integer"));
    if (from.kind === "timestamp" && Number.isNaN(from.timestamp)) return setError(new Error("choose a date and time"));
    const next: Query = { partition: partition === "all" ? "all" : Number(partition), from };
    setLive(false);
    setQuery(next);
    void load(next);
  };

  const decodeKey = (base64: string) => utf8OrNull(base64ToBytes(base64));
  const visible = records.filter((record) => keyMatches(record, keyFilter, decodeKey));
  const [fromKind, setFromKind] = useState(query.from.kind);

  // A topic that is not there (or not this token's to read) has nothing to browse: only the API's answer.
  if (topic === undefined && topicError !== undefined) {
    return <section><PageHeading>Messages in {props.topic}</PageHeading><ErrorMessage error={topicError} /><p><a href={routeHref({ page: "topics" })}>Back to the topics</a></p></section>;
  }
  return (
    <section>
      <PageHeading>Messages in {props.topic}</PageHeading>
      <p><a href={routeHref({ page: "topic", topic: props.topic })}>Topic details</a></p>
      <form onSubmit={submit} class="inline-form" aria-label="What to read">
        <label>Partition{" "}
          <select name="partition" value={String(query.partition)}>
            <option value="all">All</option>
            {topic?.partitions.map((p) => <option key={p.partition} value={String(p.partition)}>{p.partition}</option>)}
          </select>
        </label>
        <label>From{" "}
          <select name="from" value={fromKind} onChange={(event) => setFromKind((event.currentTarget as HTMLSelectElement).value as StartFrom["kind"])}>
            <option value="latest">Latest {readCount}</option>
            <option value="earliest">Earliest</option>
            <option value="offset">Offset</option>
            <option value="timestamp">Time</option>
          </select>
        </label>
        {fromKind === "offset" && <label>Offset <input name="at" type="number" min={0} required /></label>}
        {fromKind === "timestamp" && <label>Time (local) <input name="at" type="datetime-local" step={1} required /></label>}
        <button type="submit">Read</button>
        <button type="button" onClick={readMore}>Read more</button>
        <button type="button" aria-pressed={live} onClick={() => setLive(!live)}>{live ? "Stop live tail" : "Live tail"}</button>
      </form>
      <div class="inline-form">
        <label>Key contains <input type="search" value={keyFilter} onInput={(event) => setKeyFilter((event.currentTarget as HTMLInputElement).value)} /></label>
        <fieldset class="radios"><legend>Show values as</legend>
          <label><input type="radio" name="view" checked={view === "text"} onChange={() => setView("text")} /> UTF-8 / JSON</label>
          <label><input type="radio" name="view" checked={view === "hex"} onChange={() => setView("hex")} /> Hex</label>
          <label><input type="radio" name="view" checked={view === "schema"} onChange={() => setView("schema")} /> Decoded by schema</label>
        </fieldset>
      </div>
      <ErrorMessage error={error} />
      {status !== undefined && <Status>{status}</Status>}
      <RecordTable records={visible} view={view} />
      {topic !== undefined && identityMay(identity, "topic", props.topic, "write") && <ProduceForm topic={topic} onProduced={() => { if (!live) void load(query); }} />}
    </section>
  );
}

function RecordTable(props: { records: ShownRecord[]; view: PayloadView }) {
  if (props.records.length === 0) return <p class="meta">No records to show.</p>;
  return (
    <table class="records">
      <caption class="visually-hidden">Records</caption>
      <thead><tr><th scope="col" class="number">Partition</th><th scope="col" class="number">Offset</th><th scope="col">Time (local)</th><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Headers</th></tr></thead>
      <tbody>
        {props.records.map((record) => {
          const decoded = props.view === "schema";
          const key = decoded ? renderDecoded(record.key, record.keySchemaId, record.keyDecodeError) : renderPayload(record.key, props.view);
          const value = decoded ? renderDecoded(record.value, record.valueSchemaId, record.valueDecodeError) : renderPayload(record.value, props.view);
          const headers = Object.entries(record.headers ?? {});
          return (
            <tr key={`${record.partition}:${record.offset}`}>
              <td class="number">{record.partition}</td>
              <td class="number">{record.offset}</td>
              <td><time dateTime={new Date(record.timestamp).toISOString()}>{formatLocalTime(record.timestamp)}</time></td>
              <td><pre class={`payload ${key.kind}`}>{key.text}</pre>{"note" in key && key.note !== undefined && <p class="meta">{key.note}</p>}</td>
              <td><pre class={`payload ${value.kind}`}>{value.text}</pre>{"note" in value && value.note !== undefined && <p class="meta">{value.note}</p>}</td>
              <td>{headers.length === 0 ? "—" : <dl class="headers">{headers.map(([name, text]) => <><dt>{name}</dt><dd>{text ?? "null"}</dd></>)}</dl>}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
