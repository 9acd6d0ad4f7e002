/**
 * Calls to the schema registry's API (/registry) through the Worker's fetch handler, and the
 * checks of Confluent's answers: its media type and `{"error_code", "message"}` errors.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export interface RegistryResponse {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export async function readRegistry(response: Response): Promise<RegistryResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers };
}

export async function registry(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RegistryResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/vnd.schemaregistry.v1+json";
  }
  return readRegistry(await exports.default.fetch(new Request(`http://tributary.test/registry${path}`, init)));
}

export function expectRegistryError(response: RegistryResponse, status: number, errorCode: number): string {
  expect({ status: response.status, errorCode: response.body?.error_code }, response.text).toEqual({ status, errorCode });
  expect(response.headers.get("content-type")).toBe("application/vnd.schemaregistry.v1+json");
  expect(typeof response.body.message).toBe("string");
  return response.body.message as string;
}

let count = 0;
/** A subject no other test uses: every test file shares the deployment's one registry. */
export function uniqueSubject(prefix = "s"): string {
  return `${prefix}-${Date.now().toString(36)}-${(count++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** An Avro record schema's text with the given fields. */
export function recordSchema(fields: unknown[], name = "Value"): string {
  return JSON.stringify({ type: "record", name, namespace: "test", fields });
}

export async function register(subject: string, schema: string, extra: Record<string, unknown> = {}, query = ""): Promise<RegistryResponse> {
  return registry("POST", `/subjects/${encodeURIComponent(subject)}/versions${query}`, { schema, ...extra });
}

export async function registeredId(subject: string, schema: string, extra: Record<string, unknown> = {}, query = ""): Promise<number> {
  const response = await register(subject, schema, extra, query);
  expect(response.status, response.text).toBe(200);
  expect(typeof response.body.id).toBe("number");
  return response.body.id as number;
}
