/** API reference: the deployment's own OpenAPI document (GET /v1/openapi.json), rendered. */
import { api } from "../api.ts";
import { ErrorMessage, PageHeading, Status, useLoad } from "../components/common.tsx";

interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
}
interface OpenApiDocument {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

const methods = ["get", "post", "put", "patch", "delete", "head", "options"];

export function ApiReferencePage() {
  const document = useLoad(() => api<OpenApiDocument>("GET", "/v1/openapi.json"), "openapi");
  const operations = Object.entries(document.data?.paths ?? {}).flatMap(([route, item]) =>
    methods.filter((method) => item[method] !== undefined).map((method) => ({ route, method, operation: item[method]! })));
  return (
    <section>
      <PageHeading>API reference</PageHeading>
      <p class="meta">Rendered from this deployment's <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
      <ErrorMessage error={document.error} />
      {document.data === undefined && document.loading && <Status>Loading the OpenAPI document…</Status>}
      {document.data?.info !== undefined && <p>{document.data.info.title} {document.data.info.version}</p>}
      <nav aria-label="Operations">
        <ul class="toc">{operations.map(({ route, method }) => <li key={method + route}><a href={`#op-${anchor(method, route)}`} onClick={(event) => { event.preventDefault(); window.document.getElementById(`op-${anchor(method, route)}`)?.focus(); }}><code>{method.toUpperCase()} {route}</code></a></li>)}</ul>
      </nav>
      {operations.map(({ route, method, operation }) => (
        <article key={method + route} class="operation" id={`op-${anchor(method, route)}`} tabIndex={-1}>
          <h2><span class={`method ${method}`}>{method.toUpperCase()}</span> <code>{route}</code></h2>
          {operation.summary !== undefined && <p>{operation.summary}</p>}
          {operation.description !== undefined && operation.description !== operation.summary && <p class="meta">{operation.description}</p>}
          {(operation.parameters ?? []).length > 0 && (
            <table>
              <thead><tr><th scope="col">Parameter</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>
              <tbody>{operation.parameters!.map((parameter) => <tr key={parameter.in + parameter.name}><th scope="row"><code>{parameter.name}</code></th><td>{parameter.in}</td><td>{parameter.required === true ? "yes" : "no"}</td><td>{parameter.description ?? ""}</td></tr>)}</tbody>
            </table>
          )}
          {operation.requestBody?.content !== undefined && Object.entries(operation.requestBody.content).map(([type, media]) => (
            <details key={type}><summary>Request body ({type})</summary><pre class="payload json">{JSON.stringify(media.schema ?? {}, null, 2)}</pre></details>
          ))}
          {operation.responses !== undefined && (
            <dl class="responses">{Object.entries(operation.responses).map(([status, response]) => <><dt key={status}><code>{status}</code></dt><dd>{response.description ?? ""}</dd></>)}</dl>
          )}
        </article>
      ))}
    </section>
  );
}

function anchor(method: string, route: string): string {
  return `${method}-${route.replace(/[^a-zA-Z0-9]+/g, "-")}`;
}
