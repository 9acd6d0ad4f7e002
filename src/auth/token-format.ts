import { decodeBase64, encodeBase64 } from "../protocol/base64.ts";

/**
 * The shapes of bearer tokens, and the hashing and signing behind them. Pure (Web Crypto
 * only, as in Workers and Node), so the router, the controller and tests share one format.
 *
 * - Scoped token: `trb_<id>_<secret>` — the id (16 hex digits) names the controller's row,
 *   the secret (32 bytes, base64url: 24 random, 8 of tag) is stored only as its SHA-256.
 * - Write token: `trw_<payload>.<signature>` — a short-lived browser token (docs/api.md)
 *   that nobody stores: the payload (base64url JSON) names the token it was minted from, the
 *   one topic it may write and its expiry; the signature is an HMAC-SHA256 keyed by the
 *   admin token, so rotating the admin token voids every write token.
 * - Read token: `trr_<payload>.<signature>` — the same, for reading and describing one topic
 *   (docs/api.md, "Read tokens for browsers"), signed with a key of its own, so neither kind
 *   can pass for the other.
 * - Session token: `trs_<payload>.<signature>` — what a SCRAM exchange answers when its proof
 *   holds (the Kafka gateway's credential for that connection, docs/gateway.md): it acts as the
 *   scoped token it names, with that token's rules and quotas, until its expiry (at most a day)
 *   or until that token is revoked. Signed with a key of its own; nobody stores it.
 * - All exist only under an admin token: a scoped token's row records the fingerprint of the
 *   admin token it was created under, and authenticates only under that one (so a token made
 *   before the deployment was secured, or under an admin token since rotated, is void).
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

/** The last admin token's fingerprint, by admin token: a deployment has one admin token at a time. */
let lastFingerprint: { adminToken: string; fingerprint: Promise<string> } | undefined;

/**
 * The fingerprint of an admin token that its scoped tokens are bound to: a SHA-256 of it,
 * domain-separated, so the controller never holds the admin token itself. (Like the write
 * tokens' HMAC, this assumes a long random admin token, not a guessable one.)
 */
export function adminTokenFingerprint(adminToken: string): Promise<string> {
  if (lastFingerprint?.adminToken !== adminToken) {
    lastFingerprint = { adminToken, fingerprint: sha256Hex(`tributary admin token fingerprint v1\n${adminToken}`) };
  }
  return lastFingerprint.fingerprint;
}

const fingerprintPattern = /^[0-9a-f]{64}$/;

export function isAdminTokenFingerprint(value: unknown): value is string {
  return typeof value === "string" && fingerprintPattern.test(value);
}

export interface NewScopedToken {
  id: string;
  token: string;
  secretHash: string;
}

/** Bytes of a scoped token's secret: random, then a tag proving the controller made it. */
const secretRandomBytes = 24;
const secretTagBytes = 8;

/** The HMAC key behind scoped tokens' tags, from its raw bytes (the controller keeps them). */
export function importTagKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function tag(tagKey: CryptoKey, id: string, random: Uint8Array): Promise<Uint8Array> {
  const signed = new Uint8Array(await crypto.subtle.sign("HMAC", tagKey, utf8.encode(`${id}.${base64url(random)}`)));
  return signed.subarray(0, secretTagBytes);
}

/**
 * A new scoped token. Its secret ends in a tag (HMAC of the id and the secret's random part,
 * keyed by the controller's tag key), so a router refuses a made-up token without asking the
 * controller: a flood of random bearer strings cannot reach the one controller.
 */
export async function newScopedToken(tagKey: CryptoKey): Promise<NewScopedToken> {
  const id = hex(crypto.getRandomValues(new Uint8Array(8)));
  const random = crypto.getRandomValues(new Uint8Array(secretRandomBytes));
  const secretBytes = new Uint8Array(secretRandomBytes + secretTagBytes);
  secretBytes.set(random);
  secretBytes.set(await tag(tagKey, id, random), secretRandomBytes);
  const secret = base64url(secretBytes);
  return { id, token: `${scopedPrefix}${id}_${secret}`, secretHash: await sha256Hex(secret) };
}

/**
 * A scoped token's id and the SHA-256 of its secret, or undefined when it is not one or its
 * tag is wrong (compared in constant time).
 */
export async function parseScopedToken(token: string, tagKey: CryptoKey): Promise<{ id: string; secretHash: string } | undefined> {
  if (!token.startsWith(scopedPrefix)) return undefined;
  const id = token.slice(scopedPrefix.length, scopedPrefix.length + 16);
  const secret = token.slice(scopedPrefix.length + 17);
  if (!tokenIdPattern.test(id) || token[scopedPrefix.length + 16] !== "_" || !secretPattern.test(secret)) return undefined;
  const secretBytes = fromBase64url(secret);
  if (secretBytes === undefined) return undefined;
  const expected = await tag(tagKey, id, secretBytes.subarray(0, secretRandomBytes));
  let difference = 0;
  for (let index = 0; index < secretTagBytes; index++) difference |= expected[index]! ^ secretBytes[secretRandomBytes + index]!;
  if (difference !== 0) return undefined;
  return { id, secretHash: await sha256Hex(secret) };
}

export function isTokenId(value: string): boolean {
  return tokenIdPattern.test(value);
}

/** What a write (or read) token says: minted from `parent` (a token id, or "admin"), for `topic`, until `expiresAt`. */
export interface WriteTokenClaims {
  parent: string;
  topic: string;
  expiresAt: number;
}

export type ReadTokenClaims = WriteTokenClaims;

/**
 * What the deployment signs with keys derived from the admin token, each kind with its own key
 * (domain-separated), so that none can pass for another: the two kinds of topic token, SCRAM
 * session tokens, and the state a SCRAM exchange carries from its first step to its last.
 */
type SignedKind = "write" | "read" | "session" | "scram exchange";
type TopicTokenKind = "write" | "read";
const signedPrefixes: Record<SignedKind, string> = { write: writePrefix, read: "trr_", session: "trs_", "scram exchange": "" };

/** The last signing keys made, by admin token: a deployment has one admin token at a time. */
let lastKeys: { adminToken: string; keys: Partial<Record<SignedKind, Promise<CryptoKey>>> } | undefined;

function signingKey(kind: SignedKind, adminToken: string): Promise<CryptoKey> {
  if (lastKeys?.adminToken !== adminToken) lastKeys = { adminToken, keys: {} };
  const material = utf8.encode(`tributary ${kind} tokens v1\n${adminToken}`);
  return (lastKeys.keys[kind] ??= crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
}

/** `<prefix><base64url JSON>.<base64url HMAC-SHA256 of it>`. */
export async function signPayload(kind: SignedKind, value: unknown, adminToken: string): Promise<string> {
  const payload = base64url(utf8.encode(JSON.stringify(value)));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(kind, adminToken), utf8.encode(payload)));
  return `${signedPrefixes[kind]}${payload}.${base64url(signature)}`;
}

/**
 * The JSON a text of this kind carries when its signature is right (checked in constant time
 * by Web Crypto's verify), or undefined. What it says (its shape, its expiry) is the caller's to check.
 */
export async function verifyPayload(kind: SignedKind, text: string, adminToken: string): Promise<unknown> {
  const prefix = signedPrefixes[kind];
  if (!text.startsWith(prefix)) return undefined;
  const [payload, signatureText, extra] = text.slice(prefix.length).split(".");
  if (payload === undefined || signatureText === undefined || extra !== undefined) return undefined;
  const signature = fromBase64url(signatureText);
  if (signature === undefined || signature.byteLength !== 32) return undefined;
  if (!(await crypto.subtle.verify("HMAC", await signingKey(kind, adminToken), signature, utf8.encode(payload)))) return undefined;
  const json = fromBase64url(payload);
  return json === undefined ? undefined : (JSON.parse(new TextDecoder().decode(json)) as unknown);
}

function signTopicToken(kind: TopicTokenKind, claims: WriteTokenClaims, adminToken: string): Promise<string> {
  return signPayload(kind, { p: claims.parent, t: claims.topic, e: claims.expiresAt }, adminToken);
}

/** The claims of a topic token of this kind whose signature is right, or undefined. Expiry is the caller's to check. */
async function verifyTopicToken(kind: TopicTokenKind, token: string, adminToken: string): Promise<WriteTokenClaims | undefined> {
  const claims = (await verifyPayload(kind, token, adminToken)) as { p?: unknown; t?: unknown; e?: unknown } | undefined;
  if (typeof claims?.p !== "string" || typeof claims.t !== "string" || !Number.isSafeInteger(claims.e)) return undefined;
  return { parent: claims.p, topic: claims.t, expiresAt: claims.e as number };
}

export function signWriteToken(claims: WriteTokenClaims, adminToken: string): Promise<string> {
  return signTopicToken("write", claims, adminToken);
}

export function isWriteToken(token: string): boolean {
  return token.startsWith(signedPrefixes.write);
}

export function verifyWriteToken(token: string, adminToken: string): Promise<WriteTokenClaims | undefined> {
  return verifyTopicToken("write", token, adminToken);
}

export function signReadToken(claims: ReadTokenClaims, adminToken: string): Promise<string> {
  return signTopicToken("read", claims, adminToken);
}

export function isReadToken(token: string): boolean {
  return token.startsWith(signedPrefixes.read);
}

export function verifyReadToken(token: string, adminToken: string): Promise<ReadTokenClaims | undefined> {
  return verifyTopicToken("read", token, adminToken);
}

/** What a session token says: it acts as the scoped token `parent` (its id), until `expiresAt`. */
export interface SessionTokenClaims {
  parent: string;
  expiresAt: number;
}

export function signSessionToken(claims: SessionTokenClaims, adminToken: string): Promise<string> {
  return signPayload("session", { p: claims.parent, e: claims.expiresAt }, adminToken);
}

export function isSessionToken(token: string): boolean {
  return token.startsWith(signedPrefixes.session);
}

/** The claims of a session token whose signature is right, or undefined. Expiry is the caller's to check. */
export async function verifySessionToken(token: string, adminToken: string): Promise<SessionTokenClaims | undefined> {
  const claims = (await verifyPayload("session", token, adminToken)) as { p?: unknown; e?: unknown } | undefined;
  if (typeof claims?.p !== "string" || !tokenIdPattern.test(claims.p) || !Number.isSafeInteger(claims.e)) return undefined;
  return { parent: claims.p, expiresAt: claims.e as number };
}
