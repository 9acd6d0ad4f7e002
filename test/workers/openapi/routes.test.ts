/**
 * GET /v1/openapi.json (src/router/openapi/): the document names every route the app serves
 * (hono's own table), and each route's query parameters are exactly those the router takes —
 * read from the router's own refusal of any other, which names them.
 */
import { describe, expect, it } from "vitest";
import { openApiDocument, routeDocs } from "../../../src/router/openapi/document.ts";
import { adminToken, appRoutes, securedCall } from "../support/secured.ts";
import { durableStreamsBasePath } from "../../../src/durable-streams/routes.ts";
import { registryBasePath } from "../../../src/registry-api/routes.ts";

/** "GET /v1/topics/:topic" → "GET /v1/topics/{topic}", as the document spells paths. */
const asDocumented = (route: string) => route.replace(/:(\w+)/g, "{$1}");
const documented = () => {
  const { paths } = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)).sort();
};
/** Served once the `metrics` work is merged; until then documented ahead of it. */
describe("the OpenAPI document's routes", () => {
  it("names every route the app serves", () => {
    const inDocument = new Set(documented());
    // The Durable Streams routes and the schema registry's are other protocols (docs/durable-streams.md,
    // docs/schema-registry.md), not part of /v1's document.
    const v1Routes = appRoutes().filter((route) => !route.includes(` ${durableStreamsBasePath}/`) && !route.includes(` ${registryBasePath}`));
    expect(v1Routes.map(asDocumented).filter((route) => !inDocument.has(route))).toEqual([]);
  });

  it("names no route the app does not serve", () => {
    const served = new Set(appRoutes().map(asDocumented));
    expect(documented().filter((route) => !served.has(route))).toEqual([]);
  });

  it("is served without a token on a secured deployment, as JSON, the same document", async () => {
    const response = await securedCall("GET", "/v1/openapi.json");
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(response.body.openapi).toBe("3.1.0");
  });

  it("refuses query parameters and other methods, as every route does", async () => {
    const query = await securedCall("GET", "/v1/openapi.json?x=1");
    expect({ status: query.status, code: query.body?.error?.code }).toEqual({ status: 400, code: "INVALID_REQUEST" });
    const post = await securedCall("POST", "/v1/openapi.json", { token: adminToken });
    expect({ status: post.status, allow: post.headers.get("allow") }).toEqual({ status: 405, allow: "GET, HEAD, OPTIONS" });
  });
});

/** A request path for a route pattern; the values only need to reach the route's query check. */
const concrete = (path: string) =>
  path.replace(":topic", "openapi-query").replace(":partition", "0").replace(":group", "openapi-group").replace(":memberId", "m").replace(":id", "0".repeat(16));

/** The parameters the router's refusal of an unknown one names: "takes only a, b" or "takes no query parameters". */
function acceptedOf(message: string): string[] {
  if (message.includes("takes no query parameters")) return [];
  const named = /takes only ([^;]+)/.exec(message);
  if (!named) throw new Error(`not a refusal of an unknown parameter: ${message}`);
  return named[1]!.split(", ").sort();
}

describe("the OpenAPI document's query parameters", () => {
  const served = new Set(appRoutes().map(asDocumented));
  const cases = routeDocs
    .filter((route) => route.path !== "/v1/health" && served.has(asDocumented(`${route.method.toUpperCase()} ${route.path}`)))
    .flatMap((route) =>
      (route.kinds ?? [{ kind: "", headers: {}, query: route.query ?? [] }]).map((kind) => [`${route.method.toUpperCase()} ${route.path} ${kind.kind}`.trim(), route, kind] as const),
    );

  it.each(cases)("%s takes exactly the documented ones", async (_name, route, kind) => {
    const response = await securedCall(route.method.toUpperCase(), `${concrete(route.path)}?not-a-parameter=1`, { token: adminToken, headers: kind.headers });
    expect({ status: response.status, code: response.body?.error?.code }, response.text).toEqual({ status: 400, code: "INVALID_REQUEST" });
    expect(acceptedOf(response.body.error.message)).toEqual([...kind.query].sort());
    if (!route.kinds) return;
    // Every kind's parameters are in the operation's list.
    for (const name of kind.query) expect(route.query).toContain(name);
  });
});
