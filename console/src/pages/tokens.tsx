/** Tokens (admin only): list, create with rules (the secret shown once), revoke. */
import { useState } from "preact/hooks";
import { api, path } from "../api.ts";
import { ConfirmButton, ErrorMessage, PageHeading, Status, useLoad } from "../components/common.tsx";
import { formatLocalTime } from "../format.ts";
import { describeIdentity, identityIsAdmin } from "../identity.ts";
import { useSession } from "../session-identity.tsx";
import type { Operation, Rule, TokenInfo } from "../types.ts";

const operations: Operation[] = ["read", "write", "describe", "create", "alter", "delete"];
const emptyRule = (): Rule => ({ resource: "topic", name: "", patternType: "literal", operations: ["read"] });

export function TokensPage() {
  const { identity, tokenRequired } = useSession();
  // Only the admin token manages tokens: another token is not sent to ask (it could only be refused).
  if (identity.kind === "loading") return <section><PageHeading>Tokens</PageHeading><Status>Checking the token…</Status></section>;
  if (!identityIsAdmin(identity)) {
    return (
      <section>
        <PageHeading>Tokens</PageHeading>
        <p data-testid="tokens-admin-only">Only the admin token manages tokens; this session holds {identity.kind === "no-token" || identity.kind === "refused" ? "no valid token" : `a ${describeIdentity(identity).replace(/^\w/, (first) => first.toLowerCase())}`}.</p>
        {(identity.kind === "scoped" || identity.kind === "write" || identity.kind === "read") && (
          <><h2>What this token may do</h2><ul class="rules">{(identity.rules ?? []).map((rule, index) => <li key={index}>{describeRule(rule)}</li>)}</ul></>
        )}
      </section>
    );
  }
  return <TokenManager open={tokenRequired === false} />;
}

/** The admin's view: the list, revoke, and (unless the deployment is open) create. */
function TokenManager(props: { open: boolean }) {
  const tokens = useLoad(() => api<{ tokens: TokenInfo[] }>("GET", "/v1/tokens"), "tokens");
  const [error, setError] = useState<unknown>();
  const [secret, setSecret] = useState<{ name: string; token: string }>();
  const revoke = async (id: string) => {
    setError(undefined);
    try {
      await api("DELETE", path`/v1/tokens/${id}`);
      tokens.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section>
      <PageHeading>Tokens</PageHeading>
      <p class="meta">Scoped tokens and their rules (Kafka's ACLs, allow rules only). Only the admin token may manage them.</p>
      {props.open ? (
        <p class="panel" data-testid="tokens-open-mode">
          This deployment is in open mode: it has no admin token (<code>TRIBUTARY_ADMIN_TOKEN</code> is not set), so every request is allowed and a
          token would protect nothing. The API refuses to create one (<code>SECURITY_DISABLED</code>). Set the admin token
          (<code>wrangler secret put TRIBUTARY_ADMIN_TOKEN</code>; <code>.dev.vars</code> locally) to create tokens.
        </p>
      ) : (
        <CreateTokenForm onCreated={(created) => { setSecret(created); tokens.reload(); }} />
      )}
      {secret !== undefined && (
        <div class="secret" role="alert">
          <p>The secret of <strong>{secret.name}</strong>, shown this once: copy it now.</p>
          <p><code data-testid="token-secret">{secret.token}</code>{" "}<button type="button" onClick={() => void navigator.clipboard?.writeText(secret.token)}>Copy</button>{" "}<button type="button" onClick={() => setSecret(undefined)}>Done</button></p>
        </div>
      )}
      <ErrorMessage error={error} />
      <ErrorMessage error={tokens.error} />
      {tokens.data === undefined && tokens.loading && <Status>Loading tokens…</Status>}
      {tokens.data !== undefined && (
        <table>
          <caption class="visually-hidden">Tokens</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Rules</th><th scope="col">Expires</th><th scope="col">Quotas</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {tokens.data.tokens.length === 0 && <tr><td colSpan={6}>No tokens.</td></tr>}
            {tokens.data.tokens.map((token) => (
              <tr key={token.id}>
                <th scope="row">{token.name ?? "—"}</th>
                <td><code>{token.id}</code></td>
                <td><ul class="rules">{token.rules.map((rule, index) => <li key={index}>{describeRule(rule)}</li>)}</ul></td>
                <td>{token.expiresAt === null ? "never" : formatLocalTime(token.expiresAt)}</td>
                <td>{token.quotas ? Object.entries(token.quotas).map(([name, value]) => `${name} ${value}`).join(", ") || "—" : "—"}</td>
                <td><ConfirmButton label="Revoke" confirmLabel={`Revoke ${token.name ?? token.id}`} question={`Revoke token ${token.name ?? token.id}?`} onConfirm={() => revoke(token.id)} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function describeRule(rule: Rule): string {
  return `${rule.operations.join(", ")} on ${rule.resource} ${rule.patternType === "prefixed" ? `${rule.name}*` : rule.name}`;
}

function CreateTokenForm(props: { onCreated: (created: { name: string; token: string }) => void }) {
  const [rules, setRules] = useState<Rule[]>([emptyRule()]);
  const [error, setError] = useState<unknown>();
  const update = (index: number, change: Partial<Rule>) => setRules((all) => all.map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const name = String(fields.get("name") ?? "");
    const expires = String(fields.get("expiresAt") ?? "");
    const body: Record<string, unknown> = { rules };
    if (name !== "") body.name = name;
    if (expires !== "") body.expiresAt = new Date(expires).getTime();
    setError(undefined);
    try {
      const created = await api<{ token: string; name: string | null; id: string }>("POST", "/v1/tokens", body);
      props.onCreated({ name: created.name ?? created.id, token: created.token });
      form.reset();
      setRules([emptyRule()]);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <details class="panel">
      <summary>Create a token</summary>
      <form onSubmit={submit} aria-label="Create a token">
        <div class="inline-form">
          <label>Name <input name="name" autoComplete="off" /></label>
          <label>Expires (local, optional) <input name="expiresAt" type="datetime-local" /></label>
        </div>
        {rules.map((rule, index) => (
          <fieldset key={index} class="rule">
            <legend>Rule {index + 1}</legend>
            <label>Resource <select value={rule.resource} onChange={(e) => update(index, { resource: (e.currentTarget as HTMLSelectElement).value as Rule["resource"] })}><option>topic</option><option>group</option><option>cluster</option></select></label>
            <label>Name <input value={rule.name} required onInput={(e) => update(index, { name: (e.currentTarget as HTMLInputElement).value })} /></label>
            <label>Pattern <select value={rule.patternType} onChange={(e) => update(index, { patternType: (e.currentTarget as HTMLSelectElement).value as Rule["patternType"] })}><option value="literal">literal</option><option value="prefixed">prefixed</option></select></label>
            <span class="checks" role="group" aria-label={`Operations of rule ${index + 1}`}>
              {operations.map((operation) => (
                <label key={operation}><input type="checkbox" checked={rule.operations.includes(operation)} onChange={(e) => update(index, { operations: (e.currentTarget as HTMLInputElement).checked ? [...rule.operations, operation] : rule.operations.filter((o) => o !== operation) })} /> {operation}</label>
              ))}
            </span>
            {rules.length > 1 && <button type="button" onClick={() => setRules((all) => all.filter((_, i) => i !== index))}>Remove rule {index + 1}</button>}
          </fieldset>
        ))}
        <p><button type="button" onClick={() => setRules((all) => [...all, emptyRule()])}>Add a rule</button>{" "}<button type="submit">Create token</button></p>
        <ErrorMessage error={error} />
      </form>
    </details>
  );
}
