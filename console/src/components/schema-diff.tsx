/**
 * The line diff between two versions of a subject's schema (line-diff.ts over the
 * pretty-printed texts): two version pickers, a count, and the lines, each marked `+` (added
 * in the newer), `-` (removed) or blank, so the marks read aloud as well as they show.
 */
import { useState } from "preact/hooks";
import { prettySchema } from "../format.ts";
import { diffLines } from "../line-diff.ts";
import type { SchemaVersion } from "../registry.ts";

export function SchemaDiff(props: { versions: SchemaVersion[] }) {
  const numbers = props.versions.map((version) => version.version);
  const [from, setFrom] = useState(numbers.at(-2) ?? numbers[0]!);
  const [to, setTo] = useState(numbers.at(-1)!);
  const before = props.versions.find((version) => version.version === from);
  const after = props.versions.find((version) => version.version === to);
  const picker = (label: string, value: number, set: (next: number) => void) => (
    <label>{label} <select value={value} onChange={(event) => set(Number((event.currentTarget as HTMLSelectElement).value))}>
      {numbers.map((number) => <option key={number} value={number}>{number}</option>)}
    </select></label>
  );
  const diff = before !== undefined && after !== undefined ? diffLines(prettySchema(before.schema, before.schemaType), prettySchema(after.schema, after.schemaType)) : undefined;
  return (
    <>
      <h2>Diff between versions</h2>
      <div class="inline-form" role="group" aria-label="Versions to compare">
        {picker("From version", from, setFrom)}
        {picker("To version", to, setTo)}
      </div>
      {diff !== undefined && (
        <>
          <p class="meta" data-testid="diff-summary">
            Version {from} → {to}: {diff.added} line{diff.added === 1 ? "" : "s"} added, {diff.removed} removed.
            {!diff.aligned && " Too many changes to align: shown as the old text replaced by the new."}
          </p>
          <pre class="payload diff" aria-label={`Diff from version ${from} to version ${to}`} data-testid="schema-diff">
            {diff.lines.map((line, index) => {
              if (line.kind === "added") return <ins key={index}>{"+ " + line.text}</ins>;
              if (line.kind === "removed") return <del key={index}>{"- " + line.text}</del>;
              return <span key={index}>{"  " + line.text}</span>;
            })}
          </pre>
        </>
      )}
    </>
  );
}
