import { TributaryError } from "../errors.ts";

/**
 * Which webhook URLs a deployment may call (docs/api.md, Subscriptions): `SUBSCRIPTION_ORIGINS`
 * is a comma-separated list of origins (`https://hooks.example.com`), or `*` for any https
 * origin; empty (the default) allows none. A loopback or plain-http origin is allowed only
 * when listed itself — `*` never opens `http://127.0.0.1:…` — so a subscription cannot turn
 * the deployment into a client of its own network by accident. Anything else is
 * INVALID_REQUEST, before anything is created.
 */
export function checkWebhookUrl(url: string, configured: string | undefined): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TributaryError("INVALID_REQUEST", `target.url is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new TributaryError("INVALID_REQUEST", `target.url must be https:// (or a listed http:// origin), not ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) throw new TributaryError("INVALID_REQUEST", "target.url must not carry credentials: use target.secret");
  const allowed = (configured ?? "").split(",").map((entry) => entry.trim().replace(/\/+$/, "")).filter((entry) => entry.length > 0);
  if (allowed.includes(parsed.origin)) return parsed;
  const open = allowed.includes("*") && parsed.protocol === "https:" && !isLoopback(parsed.hostname);
  if (open) return parsed;
  const why = allowed.length === 0 ? "SUBSCRIPTION_ORIGINS is empty: no webhook origin is allowed" : `SUBSCRIPTION_ORIGINS does not list ${parsed.origin}`;
  throw new TributaryError("INVALID_REQUEST", `target.url is not allowed: ${why}`);
}

/** localhost, 127.0.0.0/8, ::1, 0.0.0.0: the deployment's own machine. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || host === "0.0.0.0" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
