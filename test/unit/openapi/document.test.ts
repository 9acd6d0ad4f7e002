/**
 * GET /v1/openapi.json's document (src/router/openapi/): valid OpenAPI 3.1 by a real validator
 * (@readme/openapi-parser), every schema in it compiles as JSON Schema 2020-12, and it is
 * generated from the zod schemas — a schema zod cannot describe without its own JSON Schema
 * fails the generation rather than becoming `{}`.
 */
import { readFileSync } from "node:fs";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorTable } from "../../../src/errors.ts";
import { recordBatchContentType } from "../../../src/protocol/content-types.ts";
import { produceRequestSchema } from "../../../src/protocol/schemas.ts";
import { errorCodesOf, jsonSchemaOf, openApiDocument, routeDocs } from "../../../src/router/openapi/document.ts";

type Operation = {
  security: unknown[];
  parameters: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
const document = openApiDocument() as { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, Operation["responses"][string]> } };
const operations = () => Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

describe("the OpenAPI document", () => {
  it("passes @readme/openapi-parser's validation as OpenAPI 3.1", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("is refused by the validator when broken (the check can fail)", async () => {
    const broken = structuredClone(document) as Record<string, unknown>;
    (broken.paths as Record<string, Record<string, Record<string, unknown>>>)["/v1/topics"]!.get!.responses = "none";
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it("holds schemas that compile as JSON Schema 2020-12", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const { path, method, op } of operations()) {
      const bodies = [...Object.values(op.requestBody?.content ?? {}), ...Object.values(op.responses).flatMap((answer) => Object.values(answer.content ?? {}))];
      for (const { schema } of bodies) expect(() => ajv.compile(schema), `${method} ${path}`).not.toThrow();
    }
  });

  it("answers every error of a route with its status from the error table, as {error: {code, message}}", () => {
    for (const route of routeDocs) {
      const op = document.paths[route.path.replace(/:(\w+)/g, "{$1}")]![route.method]!;
      for (const code of errorCodesOf(route)) {
        const schema = op.responses[String(errorTable[code].status)]?.content?.["application/json"]?.schema as { properties: { error: { properties: { code: { enum: string[] } } } } };
        expect(schema?.properties.error.properties.code.enum, `${route.method} ${route.path} ${code}`).toContain(code);
      }
    }
  });

  it("lists every code of docs/api.md's error table under a response of its status, and no code the table lacks", () => {
    const table = errorTableOfDocs();
    const listed = new Map<string, Set<string>>(); // status → codes the document answers with it
    for (const { op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses)) {
        for (const code of errorCodesIn(answer)) listed.set(status, (listed.get(status) ?? new Set()).add(code));
      }
    }
    expect(table.length).toBeGreaterThan(30);
    expect(table.filter(({ status, code }) => !listed.get(status)?.has(code)).map(({ status, code }) => `${status} ${code}`)).toEqual([]);
    const documented = new Set(table.map(({ status, code }) => `${status} ${code}`));
    expect([...listed].flatMap(([status, codes]) => [...codes].map((code) => `${status} ${code}`)).filter((entry) => !documented.has(entry))).toEqual([]);
  });

  it("answers 405 METHOD_NOT_ALLOWED with Allow on every path, as the router does for a method a path is not served with", () => {
    for (const { path, method, op } of operations()) expect(errorCodesIn(op.responses["405"]!), `${method} ${path}`).toEqual(["METHOD_NOT_ALLOWED"]);
  });

  it("derives the generic errors: 401 and 429 where a token is needed, the resource's 403, none on health", () => {
    const route = (method: string, path: string) => routeDocs.find((entry) => entry.method === method && entry.path === path)!;
    expect(errorCodesOf(route("get", "/v1/topics/:topic"))).toEqual(expect.arrayContaining(["INVALID_REQUEST", "UNAUTHENTICATED", "THROTTLING_QUOTA_EXCEEDED", "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PARTITION"]));
    expect(errorCodesOf(route("delete", "/v1/groups/:group"))).toContain("GROUP_AUTHORIZATION_FAILED");
    expect(errorCodesOf(route("get", "/v1/tokens"))).toContain("CLUSTER_AUTHORIZATION_FAILED");
    expect(errorCodesOf(route("get", "/v1/health"))).toEqual(["UNKNOWN_SERVER_ERROR"]);
    expect(errorCodesOf(route("get", "/v1/openapi.json"))).toEqual(["INVALID_REQUEST", "UNKNOWN_SERVER_ERROR"]);
  });

  it("documents the binary transport, the event streams and the security schemes", () => {
    const records = document.paths["/v1/topics/{topic}/partitions/{partition}/records"]!;
    expect(Object.keys(records.post!.requestBody!.content)).toEqual([recordBatchContentType]);
    expect(Object.keys(records.get!.responses["200"]!.content!)).toEqual(["application/json", recordBatchContentType, "text/event-stream"]);
    expect(Object.keys(document.paths["/v1/topics/{topic}/records"]!.get!.responses["200"]!.content!)).toEqual(["text/event-stream"]);
    expect(records.get!.security).toEqual([{ bearerToken: [] }, { accessToken: [] }]);
    expect(document.paths["/v1/health"]!.get!.security).toEqual([]);
    expect(document.paths["/v1/openapi.json"]!.get!.security).toEqual([]);
    expect(document.paths["/v1/topics"]!.post!.security).toEqual([{ bearerToken: [] }]);
  });

  it("is generated from the router's zod schemas: a produce body's JSON Schema is the schema's", () => {
    const body = document.paths["/v1/topics/{topic}/records"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(body).toEqual(jsonSchemaOf(produceRequestSchema, "input"));
    // Header names keep "__proto__" (a custom schema): its JSON Schema comes from its metadata.
    expect(JSON.stringify(body)).toContain('"headers":{"type":"object","additionalProperties":{"type":"string"}}');
  });

  it("refuses a custom schema without a JSON Schema of its own, rather than describing it as anything", () => {
    expect(() => jsonSchemaOf(z.object({ a: z.custom<string>((value) => typeof value === "string") }), "input")).toThrow(/JSON Schema/);
    expect(jsonSchemaOf(z.custom<string>((value) => typeof value === "string").meta({ type: "string" }), "input")).toEqual({ type: "string" });
  });
});

/** docs/api.md's error table: each row's status and the codes it lists (backquoted; a parenthesis says more). */
function errorTableOfDocs(): { status: string; code: string }[] {
  const docs = readFileSync(fileURLToPath(new URL("../../../docs/api.md", import.meta.url).href), "utf8");
  const section = docs.slice(docs.indexOf("\n## Errors\n"));
  const rows = section.split("\n").filter((line) => /^\| \d{3} \|/.test(line));
  return rows.flatMap((row) => {
    const [, status, codes] = /^\| (\d{3}) \| (.*) \|$/.exec(row)!;
    return [...codes!.replace(/\([^)]*\)/g, "").matchAll(/`([A-Z_]+)`/g)].map((match) => ({ status: status!, code: match[1]! }));
  });
}

/** The error codes a response's JSON body may carry (a $ref to components.responses resolved). */
function errorCodesIn(answer: Operation["responses"][string] & { $ref?: string }): string[] {
  const resolved = answer.$ref === undefined ? answer : document.components.responses[answer.$ref.replace("#/components/responses/", "")]!;
  const schema = resolved.content?.["application/json"]?.schema as { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } | undefined;
  return schema?.properties?.error?.properties?.code?.enum ?? [];
}
