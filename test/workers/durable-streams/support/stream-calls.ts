/** Calling the Durable Streams routes in the workers layer: unique stream paths, one request. */
import { exports } from "cloudflare:workers";
import { baseUrl } from "../../support/http.ts";

let streams = 0;

/** A stream path no other test uses. */
export const uniquePath = (label: string) => `tests/${label}-${Date.now()}-${streams++}`;

export const plain = { "content-type": "text/plain" };

/** One request to `/ds/<path>`: its status, headers and body as text. */
export async function ds(method: string, path: string, init: { body?: string | Uint8Array; headers?: Record<string, string> } = {}) {
  const response = await exports.default.fetch(new Request(`${baseUrl}/ds/${path}`, { method, ...init }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}
