/**
 * A webhook's signature (docs/api.md, Subscriptions): `Tributary-Signature: t=<ms>,v1=<hex>`,
 * the hex HMAC-SHA256 of "<t>.<body>" under the subscription's secret — Stripe's scheme, so
 * the receiver checks the body and, with `t`, refuses replays of old deliveries. WebCrypto
 * only: it runs in the Worker, in Node ≥ 20 (the client's `verifyWebhookSignature`) and in a
 * receiving Worker.
 */
export const signatureHeader = "Tributary-Signature";

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  let hex = "";
  for (const byte of mac) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The header's value for `body` sent at `timestampMs`. */
export async function signWebhook(secret: string, timestampMs: number, body: string): Promise<string> {
  return `t=${timestampMs},v1=${await hmacHex(secret, `${timestampMs}.${body}`)}`;
}

/** The header's parts; undefined when it is not `t=<ms>,v1=<hex>`. */
export function parseSignature(header: string): { timestampMs: number; v1: string } | undefined {
  const parts = new Map(header.split(",").map((part) => [part.slice(0, part.indexOf("=")).trim(), part.slice(part.indexOf("=") + 1).trim()]));
  const t = parts.get("t");
  const v1 = parts.get("v1");
  if (!t || !/^\d+$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return undefined;
  return { timestampMs: Number(t), v1 };
}

/**
 * Whether `header` signs `body` under `secret`, compared in constant time. `toleranceMs`
 * (with `nowMs`) also refuses a signature older than that: a replayed delivery.
 */
export async function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  options: { toleranceMs?: number; nowMs?: number } = {},
): Promise<boolean> {
  const parsed = header ? parseSignature(header) : undefined;
  if (!parsed) return false;
  if (options.toleranceMs !== undefined && Math.abs((options.nowMs ?? Date.now()) - parsed.timestampMs) > options.toleranceMs) return false;
  const expected = await hmacHex(secret, `${parsed.timestampMs}.${body}`);
  let difference = 0;
  for (let index = 0; index < expected.length; index++) difference |= expected.charCodeAt(index) ^ parsed.v1.charCodeAt(index);
  return difference === 0;
}
