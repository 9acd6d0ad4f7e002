/**
 * The console's one way to the HTTP API (docs/api.md): same origin, JSON, the session's token
 * as `Authorization: Bearer`. An error answer becomes an `ApiError` carrying the API's code,
 * message and data, so pages show the API's own validation messages.
 */
import { storedToken } from "./session.ts";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown>;
  constructor(status: number, code: string, message: string, data: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.data = data;
  }
}

export function authHeaders(): Record<string, string> {
  const token = storedToken();
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** `encodeURIComponent` for each path segment: topic and group names may hold any character. */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
  return strings.reduce((out, text, index) => out + text + (index < segments.length ? encodeURIComponent(String(segments[index])) : ""), "");
}

export async function api<T>(method: string, url: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...extraHeaders, ...authHeaders() };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) throw toApiError(response.status, parsed, text);
  return parsed as T;
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toApiError(status: number, parsed: unknown, text: string): ApiError {
  const error = (parsed as { error?: Record<string, unknown> } | undefined)?.error;
  if (error !== undefined && typeof error.code === "string") {
    const { code, message, ...data } = error;
    return new ApiError(status, code, typeof message === "string" ? message : code, data);
  }
  // The schema registry (/registry) answers Confluent's shape: {"error_code": 40401, "message"}.
  const registry = parsed as { error_code?: unknown; message?: unknown } | undefined;
  if (typeof registry?.error_code === "number") return new ApiError(status, String(registry.error_code), typeof registry.message === "string" ? registry.message : `HTTP ${status}`, {});
  return new ApiError(status, "HTTP_" + status, text.slice(0, 200) || `HTTP ${status}`, {});
}

/** What a page shows for a failed call: the API's code and message. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
