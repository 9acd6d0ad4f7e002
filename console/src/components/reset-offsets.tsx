/**
 * Reset offsets (`POST …/offsets/reset`, docs/api.md), shared by consumer groups and share
 * groups (the same body): a topic, where to (earliest, latest, an offset, a local time), a
 * dry run that shows the plan, then the reset.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, Status } from "./common.tsx";

export function ResetOffsetsForm(props: { resetPath: string; topics: string[]; resetEnabled: boolean; onChanged: () => void }) {
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const reset = async (event: Event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const kind = String(fields.get("to"));
    const at = String(fields.get("at") ?? "");
    const to = kind === "offset" ? { offset: Number(at) } : kind === "timestamp" ? { timestamp: new Date(at).getTime() } : kind;
    const dryRun = submitter?.value === "dry-run";
    setError(undefined);
    setMessage(undefined);
    try {
      const answer = await api<{ offsets: { partition: number; offset: number }[] }>("POST", props.resetPath, { topic: String(fields.get("topic")), to, dryRun });
      setMessage(`${dryRun ? "Would set" : "Set"} ${answer.offsets.map((row) => `partition ${row.partition} → ${row.offset}`).join(", ")}.`);
      if (!dryRun) props.onChanged();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <>
      <form onSubmit={reset} class="inline-form" aria-label="Reset offsets">
        <label>Topic <input name="topic" list="reset-topics" required autoComplete="off" /></label>
        <datalist id="reset-topics">{props.topics.map((topic) => <option key={topic} value={topic} />)}</datalist>
        <label>To <select name="to"><option value="earliest">earliest</option><option value="latest">latest</option><option value="offset">offset</option><option value="timestamp">time</option></select></label>
        <label>Offset or time (local) <input name="at" autoComplete="off" placeholder="42 or 2026-12-03T08:00" /></label>
        <button type="submit" name="action" value="dry-run">Dry run</button>
        <button type="submit" name="action" value="reset" disabled={!props.resetEnabled}>Reset offsets</button>
      </form>
      <ErrorMessage error={error} />
      {message !== undefined && <Status>{message}</Status>}
    </>
  );
}
