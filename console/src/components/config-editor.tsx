/**
 * Configs of a topic or a share group (`PATCH …/configs`, docs/api.md): every effective value,
 * those set on the resource marked when the API says which; set one, or restore its default
 * (`null`). A refused value shows the API's message (`INVALID_CONFIG: …`). Without the right
 * to alter, the table only.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage, Status } from "./common.tsx";

export function ConfigEditor(props: { configs: Record<string, string>; overrides?: readonly string[]; patchPath: string; mayAlter: boolean; onChanged: () => void }) {
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const overrides = props.overrides === undefined ? undefined : new Set(props.overrides);
  const names = Object.keys(props.configs).sort();
  const patch = async (configs: Record<string, string | null>, done: string) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await api("PATCH", props.patchPath, { configs });
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
    if ((event as SubmitEvent).submitter?.getAttribute("value") === "default") return void patch({ [name]: null }, `Restored the default of ${name}.`);
    void patch({ [name]: String(fields.get("value")) }, `Set ${name}.`);
  };
  return (
    <>
      <h2>Configs</h2>
      {props.mayAlter && (
        <form onSubmit={submit} class="inline-form" aria-label="Set a config">
          <label>Config <select name="name">{names.map((name) => <option key={name} value={name}>{name}</option>)}</select></label>
          <label>Value <input name="value" required autoComplete="off" /></label>
          <button type="submit" value="set">Set config</button>
          {overrides === undefined && <button type="submit" value="default" formNoValidate>Restore default</button>}
        </form>
      )}
      <ErrorMessage error={error} />
      {message !== undefined && <Status>{message}</Status>}
      <table>
        <caption class="visually-hidden">Configs</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Value</th>{overrides !== undefined && <><th scope="col">Source</th><th scope="col"><span class="visually-hidden">Actions</span></th></>}</tr></thead>
        <tbody>
          {names.map((name) => (
            <tr key={name}>
              <th scope="row"><code>{name}</code></th>
              <td><code>{props.configs[name] === "" ? "(none)" : props.configs[name]}</code></td>
              {overrides !== undefined && (
                <>
                  <td>{overrides.has(name) ? <strong>set on topic</strong> : "default"}</td>
                  <td>{overrides.has(name) && props.mayAlter && <button type="button" onClick={() => patch({ [name]: null }, `Restored the default of ${name}.`)}>Restore default<span class="visually-hidden"> of {name}</span></button>}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
