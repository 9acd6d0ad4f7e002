/**
 * Schemas (the schema registry under /registry, docs/schema-registry.md): the subjects with
 * their latest version, type and id; one subject's versions pretty-printed, a diff between two
 * of them, and its compatibility level with a control to change it (`alter` on the subject).
 */
import { useState } from "preact/hooks";
import { ErrorMessage, PageHeading, Status, useLoad } from "../components/common.tsx";
import { SchemaDiff } from "../components/schema-diff.tsx";
import { describedTopicsMax } from "../data.ts";
import { prettySchema } from "../format.ts";
import { identityMay } from "../identity.ts";
import { clearSubjectCompatibility, compatibilityLevels, loadGlobalCompatibility, loadSubject, loadSubjectCompatibility, loadSubjects, schemaTypeOf, setSubjectCompatibility, type SchemaVersion } from "../registry.ts";
import { routeHref } from "../routes.ts";
import { useIdentity } from "../session-identity.tsx";

export function SchemasPage() {
  const [withDeleted, setWithDeleted] = useState(false);
  const [filter, setFilter] = useState("");
  const subjects = useLoad(() => loadSubjects(withDeleted), `subjects|${withDeleted}`);
  const global = useLoad(loadGlobalCompatibility, "global-compatibility");
  const rows = (subjects.data ?? []).filter((row) => row.subject.includes(filter));
  return (
    <section>
      <PageHeading>Schemas</PageHeading>
      <p class="meta">The schema registry at <code>/registry</code> (Confluent's API; give serializers <code>{location.origin}/registry</code>). Global compatibility level: <strong data-testid="global-compatibility">{global.data ?? "—"}</strong></p>
      <ErrorMessage error={global.error} />
      <div class="inline-form">
        <label>Subject contains <input type="search" value={filter} onInput={(event) => setFilter((event.currentTarget as HTMLInputElement).value)} /></label>
        <label class="check"><input type="checkbox" checked={withDeleted} onChange={(event) => setWithDeleted((event.currentTarget as HTMLInputElement).checked)} /> Show soft-deleted subjects</label>
      </div>
      <ErrorMessage error={subjects.error} />
      {subjects.data === undefined && subjects.loading && <Status>Loading subjects…</Status>}
      {subjects.data !== undefined && (
        <table>
          <caption class="visually-hidden">Subjects</caption>
          <thead><tr><th scope="col">Subject</th><th scope="col" class="number">Latest version</th><th scope="col">Type</th><th scope="col" class="number">Schema id</th></tr></thead>
          <tbody>
            {subjects.data.length === 0 && <tr><td colSpan={4}>No subjects yet: register one with <code>POST /registry/subjects/&lt;subject&gt;/versions</code>, or let a serializer register its schema with the first record it writes.</td></tr>}
            {subjects.data.length > 0 && rows.length === 0 && <tr><td colSpan={4}>No subject contains “{filter}”.</td></tr>}
            {rows.map((row) => (
              <tr key={row.subject}>
                <th scope="row"><a href={routeHref({ page: "schema-subject", subject: row.subject })}>{row.subject}</a>{row.deleted && <span class="badge warn"> soft-deleted</span>}</th>
                <td class="number">{row.latest?.version ?? "—"}</td>
                <td>{row.latest === undefined ? "—" : schemaTypeOf(row.latest)}</td>
                <td class="number">{row.latest?.id ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(subjects.data?.length ?? 0) > describedTopicsMax && <p class="meta">The latest version is shown for the first {describedTopicsMax} subjects.</p>}
    </section>
  );
}

export function SchemaSubjectPage(props: { subject: string }) {
  const detail = useLoad(() => loadSubject(props.subject), `subject:${props.subject}`);
  const versions = detail.data?.versions ?? [];
  return (
    <section>
      <PageHeading>Subject {props.subject}</PageHeading>
      <p class="meta"><a href={routeHref({ page: "schemas" })}>All subjects</a></p>
      <ErrorMessage error={detail.error} />
      {detail.data === undefined && detail.loading && <Status>Loading versions…</Status>}
      {detail.data !== undefined && (
        <>
          <CompatibilityControl subject={props.subject} />
          <h2>Versions</h2>
          {versions.length === 0 && <p class="meta">No versions.</p>}
          {versions.map((version) => <VersionDetails key={version.version} version={version} deleted={detail.data!.deleted.has(version.version)} open={version === versions.at(-1)} />)}
          {versions.length >= 2 && <SchemaDiff versions={versions} />}
        </>
      )}
    </section>
  );
}

function VersionDetails(props: { version: SchemaVersion; deleted: boolean; open: boolean }) {
  const { version } = props;
  return (
    <details class="panel" open={props.open}>
      <summary>Version {version.version} · id {version.id} · {schemaTypeOf(version)}{props.deleted && " · soft-deleted"}</summary>
      {(version.references ?? []).length > 0 && <p class="meta">References: {version.references!.map((reference) => `${reference.name} → ${reference.subject} v${reference.version}`).join(", ")}</p>}
      <pre class="payload schema" aria-label={`Schema of version ${version.version}`}>{prettySchema(version.schema, version.schemaType)}</pre>
    </details>
  );
}

/**
 * The subject's level as Confluent's clients see it (its own, else the global one), and the
 * global one; set it, or drop its own (then the global one applies). A refusal shows
 * Confluent's message (`42203: …`, `40301: …`).
 */
function CompatibilityControl(props: { subject: string }) {
  const identity = useIdentity();
  const level = useLoad(() => loadSubjectCompatibility(props.subject), `compatibility:${props.subject}`);
  const global = useLoad(loadGlobalCompatibility, "global-compatibility");
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const change = async (action: () => Promise<unknown>, done: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await action();
      setMessage(done);
      level.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const chosen = String(new FormData(event.currentTarget as HTMLFormElement).get("level"));
    void change(() => setSubjectCompatibility(props.subject, chosen), `Set the compatibility level of ${props.subject} to ${chosen}.`);
  };
  return (
    <>
      <h2>Compatibility</h2>
      <p class="meta">Level <strong data-testid="subject-compatibility">{level.data ?? "—"}</strong> (the subject's own, or the global level when it has none) · global level <strong>{global.data ?? "—"}</strong></p>
      <ErrorMessage error={level.error ?? global.error} />
      {identityMay(identity, "subject", props.subject, "alter") && level.data !== undefined && (
        <form onSubmit={submit} class="inline-form" aria-label="Set the compatibility level">
          <label>Compatibility level <select name="level" key={level.data}>{compatibilityLevels.map((name) => <option key={name} value={name} selected={name === level.data}>{name}</option>)}</select></label>
          <button type="submit">Set level</button>
          <button type="button" onClick={() => change(() => clearSubjectCompatibility(props.subject), `${props.subject} now follows the global level.`)}>Use the global level</button>
        </form>
      )}
      <ErrorMessage error={error} />
      {message !== undefined && <Status>{message}</Status>}
    </>
  );
}
