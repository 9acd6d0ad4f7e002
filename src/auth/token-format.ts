import { decodeBase64, encodeBase64 } from "../protocol/base64.ts";

/**
 * The shapes of bearer tokens, and the hashing and signing behind them. Pure (Web Crypto
 * only, as in Workers and Node), so the router, the controller and tests share one format.
 *
 * - Scoped token: `trb_<id>_<secret>` — the id (16 hex digits) names the controller's row,
 *   the secret (32 random bytes, base64url) is stored only as its SHA-256.
 * - Write token: `trw_<payload>.<signature>` — a short-lived browser token (docs/api.md)
 *   that nobody stores: the payload (base64url JSON) names the token it was minted from, the
 *   one topic it may write and its expiry; the signature is an HMAC-SHA256 keyed by the
 *   admin token, so rotating the admin token voids every write token.
 */

const utf8 = new TextEncoder();
const scopedPrefix = "trb_";
const writePrefix = "trw_";
const tokenIdPattern = /^[0-9a-f]{16}$/;
const secretPattern = /^[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Strict: only the canonical spelling of some bytes (unused trailing bits zero), so a token has one spelling. */
function fromBase64url(text: string): Uint8Array | undefined {
  if (/[+/=]/.test(text)) return undefined;
  const standard = text.replaceAll("-", "+").replaceAll("_", "/");
  const bytes = decodeBase64(standard.padEnd(Math.ceil(standard.length / 4) * 4, "="));
  return bytes !== undefined && base64url(bytes) === text ? bytes : undefined;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8.encode(text))));
}

export interface NewScopedToken {
  id: string;
  token: string;
  secretHash: string;
}

export async function newScopedToken(): Promise<NewScopedToken> {
  const id = hex(crypto.getRandomValues(new Uint8Array(8)));
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { id, token: `${scopedPrefix}${id}_${secret}`, secretHash: await sha256Hex(secret) };
}

/** A scoped token's id and the SHA-256 of its secret, or undefined when it is not one. */
export async function parseScopedToken(token: string): Promise<{ id: string; secretHash: string } | undefined> {
  if (!token.startsWith(scopedPrefix)) return undefined;
  const id = token.slice(scopedPrefix.length, scopedPrefix.length + 16);
  const secret = token.slice(scopedPrefix.length + 17);
  if (!tokenIdPattern.test(id) || token[scopedPrefix.length + 16] !== "_" || !secretPattern.test(secret)) return undefined;
  return { id, secretHash: await sha256Hex(secret) };
}

export function isTokenId(value: string): boolean {
  return tokenIdPattern.test(value);
}

/** What a write token says: minted from `parent` (a token id, or "admin"), for `topic`, until `expiresAt`. */
export interface WriteTokenClaims {
  parent: string;
  topic: string;
  expiresAt: number;
}

/** The last signing key made, by admin token: a deployment has one admin token at a time. */
let lastKey: { adminToken: string; key: Promise<CryptoKey> } | undefined;

function signingKey(adminToken: string): Promise<CryptoKey> {
  if (lastKey?.adminToken !== adminToken) {
    const material = utf8.encode(`tributary write tokens v1\n${adminToken}`);
    lastKey = { adminToken, key: crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]) };
  }
  return lastKey.key;
}

export async function signWriteToken(claims: WriteTokenClaims, adminToken: string): Promise<string> {
  const payload = base64url(utf8.encode(JSON.stringify({ p: claims.parent, t: claims.topic, e: claims.expiresAt })));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(adminToken), utf8.encode(payload)));
  return `${writePrefix}${payload}.${base64url(signature)}`;
}

export function isWriteToken(token: string): boolean {
  return token.startsWith(writePrefix);
}

/**
 * The claims of a write token whose signature is right (checked in constant time by Web
 * Crypto's verify), or undefined. Expiry is the caller's to check.
 */
export async function verifyWriteToken(token: string, adminToken: string): Promise<WriteTokenClaims | undefined> {
  if (!token.startsWith(writePrefix)) return undefined;
  const [payload, signatureText, extra] = token.slice(writePrefix.length).split(".");
  if (payload === undefined || signatureText === undefined || extra !== undefined) return undefined;
  const signature = fromBase64url(signatureText);
  if (signature === undefined || signature.byteLength !== 32) return undefined;
  if (!(await crypto.subtle.verify("HMAC", await signingKey(adminToken), signature, utf8.encode(payload)))) return undefined;
  const json = fromBase64url(payload);
  if (json === undefined) return undefined;
  const claims = JSON.parse(new TextDecoder().decode(json)) as { p?: unknown; t?: unknown; e?: unknown };
  if (typeof claims.p !== "string" || typeof claims.t !== "string" || !Number.isSafeInteger(claims.e)) return undefined;
  return { parent: claims.p, topic: claims.t, expiresAt: claims.e as number };
}
