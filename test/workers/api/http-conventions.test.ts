/**
 * HTTP conventions every route shares (docs/api.md, Conventions and Errors; issue 12): a
 * served path requested with another method is 405 METHOD_NOT_ALLOWED with `Allow`, a query
 * parameter a route does not take is 400 INVALID_REQUEST naming it (so `acks` in a JSON
 * produce's query is not ignored silently), and `at` says what it takes.
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { encodeRecordBatch } from "../../../src/protocol/record-batch.ts";
import { createApp } from "../../../src/app.ts";
import { api, baseUrl, createTopic, expectError, highWatermarks, readResponse, uniqueTopic } from "../support/http.ts";
import { appRoutes, securedCall } from "../support/secured.ts";

const topic = uniqueTopic("conventions");
const utf8 = new TextEncoder();
const batch = () => encodeRecordBatch([{ key: null, value: utf8.encode("b"), headers: [], timestamp: Date.now() }]);

async function produceBinary(query: string) {
  const init = { method: "POST", headers: { "content-type": recordBatchContentType }, body: batch() };
  return readResponse(await exports.default.fetch(new Request(`${baseUrl}/v1/topics/${topic}/partitions/0/records?${query}`, init)));
}

beforeAll(async () => {
  await createTopic(topic);
});

/**
 * The /v1 routes these conventions are about: the Durable Streams routes (/ds) follow their
 * own protocol, which ignores unknown query parameters (test/workers/durable-streams/), and the
 * schema registry (/registry) Confluent's API, with its own error bodies (test/workers/registry/).
 */
const v1Routes = () => appRoutes().filter((route) => !route.includes(" /ds/") && !route.includes(" /registry"));

/** Every route the app serves, by path pattern, with its methods (hono's own table). */
function routesByPath(): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const route of v1Routes()) {
    const [method, path] = route.split(" ") as [string, string];
    byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
  }
  return byPath;
}

/** A concrete path for a pattern: the test topic, partition 0, made-up group, member and token ids. */
function concrete(pattern: string): string {
  const values: Record<string, string> = { topic, partition: "0", group: "conventions-group", memberId: "m-1", id: "0".repeat(16) };
  return pattern.replace(/:(\w+)/g, (_match, name: string) => values[name] ?? "x");
}

describe("a served path with a method it is not served with", () => {
  it("answers 405 METHOD_NOT_ALLOWED with Allow listing the served methods, for every path the app serves", async () => {
    const byPath = routesByPath();
    expect(byPath.size).toBeGreaterThan(10);
    for (const [pattern, served] of byPath) {
      const expected = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].filter(
        (method) => served.has(method) || (method === "HEAD" && served.has("GET")) || method === "OPTIONS",
      );
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((method) => !served.has(method))) {
        const response = await api(method, concrete(pattern));
        const error = expectError(response, 405, "METHOD_NOT_ALLOWED");
        expect({ pattern, method, allow: response.headers.get("allow") }).toEqual({ pattern, method, allow: expected.join(", ") });
        expect(error.allow).toEqual(expected);
        expect(error.message).toContain(method);
      }
    }
  });

  it("writes nothing: a PUT of records is refused before any work", async () => {
    expectError(await api("PUT", `/v1/topics/${topic}/records`, { records: [{ value: "v" }] }), 405, "METHOD_NOT_ALLOWED");
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("answers HEAD where GET is served, without a body", async () => {
    const response = await api("HEAD", "/v1/topics");
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
  });

  it("comes after authentication: without a token a secured deployment answers 401, as for any route", async () => {
    expectError(await securedCall("PUT", "/v1/topics"), 401, "UNAUTHENTICATED");
  });

  it("keeps 404 NOT_FOUND for a path no route serves", async () => {
    expectError(await api("PUT", "/v1/nothing-here"), 404, "NOT_FOUND");
    expect((await api("PUT", "/v1/nothing-here")).headers.get("allow")).toBeNull();
  });

  it("keeps fault injection absent for every method unless TRIBUTARY_FAULTS is 1", async () => {
    const production = { ...env, TRIBUTARY_FAULTS: "0" };
    for (const method of ["GET", "POST", "DELETE"]) {
      const response = await readResponse(await createApp().request("/v1/faults", { method }, production, createExecutionContext()));
      expect({ method, status: response.status, code: response.body?.error?.code }).toEqual({ method, status: 404, code: "NOT_FOUND" });
    }
    const enabled = await api("GET", "/v1/faults");
    expectError(enabled, 405, "METHOD_NOT_ALLOWED");
    expect(enabled.headers.get("allow")).toBe("POST, OPTIONS");
  });
});

describe("query parameters a route does not take", () => {
  it("refuse acks in a JSON produce's query with 400 INVALID_REQUEST naming it, and write nothing", async () => {
    for (const query of ["acks=0", "acks=all", "encoding=base64"]) {
      const response = await api("POST", `/v1/topics/${topic}/records?${query}`, { records: [{ value: "v" }] });
      const error = expectError(response, 400, "INVALID_REQUEST");
      expect(error.parameter).toBe(query.split("=")[0]!);
      expect(error.message).toContain("go in the JSON body");
    }
    expect(await highWatermarks(topic)).toEqual([0]);
  });

  it("refuse anything but acks on a binary produce, and acks given twice, writing nothing", async () => {
    for (const [query, parameter] of [["acks=1&ack=0", "ack"], ["timeoutMs=10", "timeoutMs"], ["acks=1&acks=all", "acks"]] as const) {
      const response = await produceBinary(query);
      expect(expectError(response, 400, "INVALID_REQUEST").parameter).toBe(parameter);
    }
    expect(await highWatermarks(topic)).toEqual([0]);
    const written = await produceBinary("acks=1");
    expect(written.status, written.text).toBe(200);
  });

  it("refuse a misspelt fetch parameter, and encoding on a binary fetch", async () => {
    const misspelt = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&maxRecord=1`);
    expect(expectError(misspelt, 400, "INVALID_REQUEST").message).toContain("maxRecord");
    const encoded = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64`, undefined, { accept: recordBatchContentType });
    expect(expectError(encoded, 400, "INVALID_REQUEST").parameter).toBe("encoding");
    const fetched = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&maxRecords=1&maxBytes=100&waitMs=0&encoding=base64`);
    expect(fetched.status, fetched.text).toBe(200);
  });

  it("are refused by every route but health", async () => {
    const before = await highWatermarks(topic);
    const routes = v1Routes().filter((route) => route !== "GET /v1/health");
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const [method, pattern] = route.split(" ") as [string, string];
      const response = await api(method, `${concrete(pattern)}?bogus=1`);
      expect({ route, status: response.status, parameter: response.body?.error?.parameter }, response.text).toEqual({ route, status: 400, parameter: "bogus" });
    }
    expect(await highWatermarks(topic)).toEqual(before);
  });
});

describe("GET …/offsets?at=", () => {
  it.each(["yesterday", "-1", "1.5", ""])("refuses at=%s naming every form it takes", async (at) => {
    const error = expectError(await api("GET", `/v1/topics/${topic}/partitions/0/offsets?at=${at}`), 400, "INVALID_REQUEST");
    expect(error.message).toMatch(/earliest, latest, max-timestamp, earliest-local, latest-tiered, earliest-pending-upload, epoch-end or a timestamp in milliseconds/);
  });
});
