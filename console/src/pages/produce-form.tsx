/** Produce one record: key, value, headers, partition (or the partitioner), as JSON produce (UTF-8). */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { ErrorMessage, Status } from "../components/common.tsx";
import { parseHeaderLines } from "../format.ts";
import type { Topic } from "../types.ts";

export function ProduceForm(props: { topic: Topic; onProduced: () => void }) {
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const headers = parseHeaderLines(String(fields.get("headers") ?? ""));
    if ("error" in headers) return setError(new Error(headers.error));
    const key = String(fields.get("key") ?? "");
    const partition = String(fields.get("partition"));
    const record: Record<string, unknown> = { key: key === "" ? null : key, value: String(fields.get("value") ?? ""), headers: headers.headers };
    if (partition !== "auto") record.partition = Number(partition);
    setError(undefined);
    setResult(undefined);
    try {
      const answer = await api<{ offsets: { partition: number; offset: number }[] }>("POST", path`/v1/topics/${props.topic.name}/records`, { records: [record] });
      const written = answer.offsets[0]!;
      setResult(`Produced to partition ${written.partition} at offset ${written.offset}.`);
      props.onProduced();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <details class="panel">
      <summary>Produce a record</summary>
      <form onSubmit={submit} class="grid-form" aria-label="Produce a record">
        <label>Key (empty: no key) <input name="key" autoComplete="off" /></label>
        <label>Partition{" "}
          <select name="partition">
            <option value="auto">By key (Kafka's partitioner)</option>
            {props.topic.partitions.map((p) => <option key={p.partition} value={String(p.partition)}>{p.partition}</option>)}
          </select>
        </label>
        <label class="wide">Value <textarea name="value" rows={4} required /></label>
        <label class="wide">Headers, one <code>name: value</code> a line <textarea name="headers" rows={2} /></label>
        <div class="wide"><button type="submit">Produce</button></div>
        <ErrorMessage error={error} />
        {result !== undefined && <Status>{result}</Status>}
      </form>
    </details>
  );
}
