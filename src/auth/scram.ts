/**
 * SCRAM (RFC 5802; SCRAM-SHA-256 in RFC 7677, SCRAM-SHA-512 as Kafka names it): the
 * computations and the four messages, both sides, pure (Web Crypto only, as in Workers and
 * Node). The deployment keeps a credential per token and mechanism — salt, iteration count,
 * StoredKey and ServerKey, never the password — and checks a client's proof with it; the
 * client side is here for tests and for anyone driving the exchange over HTTP.
 *
 *   SaltedPassword  = PBKDF2(password, salt, iterations)          (RFC 5802's Hi)
 *   ClientKey       = HMAC(SaltedPassword, "Client Key")
 *   StoredKey       = H(ClientKey)                                ← kept by the server
 *   ServerKey       = HMAC(SaltedPassword, "Server Key")          ← kept by the server
 *   AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
 *   ClientSignature = HMAC(StoredKey, AuthMessage)
 *   ClientProof     = ClientKey XOR ClientSignature               (the client sends it)
 *   ServerSignature = HMAC(ServerKey, AuthMessage)                (the server answers it)
 *
 * The server recovers ClientKey = ClientProof XOR ClientSignature and accepts when
 * H(ClientKey) = StoredKey. Messages (RFC 5802 §7; no channel binding is offered):
 *
 *   client-first  n,[a=<authzid>],n=<username>,r=<client nonce>[,<extensions>]
 *   server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
 *   client-final  c=<base64 of the client-first's gs2 header>,r=<nonce>[,<extensions>],p=<base64 proof>
 *   server-final  v=<base64 ServerSignature>
 *
 * The password is used as its UTF-8 bytes without SASLprep, as Kafka's clients do (Tributary's
 * tokens are printable ASCII, which SASLprep leaves as it is).
 */
import { decodeBase64, encodeBase64 } from "../protocol/base64.ts";

/** The hash functions of the SCRAM family used here (SHA-1 for RFC 5802's own example only). */
export type ScramHash = "SHA-1" | "SHA-256" | "SHA-512";

/** The mechanisms offered, as Kafka names them, and their hash. */
export const scramMechanisms = { "SCRAM-SHA-256": "SHA-256", "SCRAM-SHA-512": "SHA-512" } as const satisfies Record<string, ScramHash>;
export type ScramMechanism = keyof typeof scramMechanisms;

export function isScramMechanism(name: string): name is ScramMechanism {
  return Object.hasOwn(scramMechanisms, name);
}

/** Bytes of each hash's output: the length of keys, proofs and signatures. */
const hashBytes: Record<ScramHash, number> = { "SHA-1": 20, "SHA-256": 32, "SHA-512": 64 };

/** What the server keeps of a password for one mechanism. */
export interface ScramCredential {
  salt: Uint8Array;
  iterations: number;
  storedKey: Uint8Array;
  serverKey: Uint8Array;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const utf8 = new TextEncoder();

function bytes(data: ArrayBuffer): Uint8Array {
  return new Uint8Array(data);
}

async function hmac(hash: ScramHash, key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash }, false, ["sign"]);
  return bytes(await crypto.subtle.sign("HMAC", imported, data));
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.map((byte, index) => byte ^ b[index]!);
}

/** Equal bytes, compared in time that depends only on the lengths. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < Math.min(a.length, b.length); index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

/** RFC 5802's Hi: PBKDF2 with HMAC over the hash, one output block. */
export async function saltedPassword(hash: ScramHash, password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", utf8.encode(password), "PBKDF2", false, ["deriveBits"]);
  return bytes(await crypto.subtle.deriveBits({ name: "PBKDF2", hash, salt, iterations }, key, hashBytes[hash] * 8));
}

/** The credential a server keeps for `password`: computed once, when the password (a token) is made. */
export async function scramCredential(hash: ScramHash, password: string, salt: Uint8Array, iterations: number): Promise<ScramCredential> {
  const salted = await saltedPassword(hash, password, salt, iterations);
  const clientKey = await hmac(hash, salted, utf8.encode("Client Key"));
  const storedKey = bytes(await crypto.subtle.digest(hash, clientKey));
  const serverKey = await hmac(hash, salted, utf8.encode("Server Key"));
  return { salt, iterations, storedKey, serverKey };
}

export function authMessage(clientFirstBare: string, serverFirst: string, clientFinalWithoutProof: string): string {
  return `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
}

/**
 * The server's check of a client's proof: the ServerSignature to answer when the proof holds
 * (the client knew the password), undefined when it does not.
 */
export async function verifyClientProof(hash: ScramHash, credential: ScramCredential, message: string, proof: Uint8Array): Promise<Uint8Array | undefined> {
  const signed = utf8.encode(message);
  const clientSignature = await hmac(hash, credential.storedKey, signed);
  if (proof.length !== clientSignature.length) return undefined;
  const clientKey = xor(proof, clientSignature);
  const storedKey = bytes(await crypto.subtle.digest(hash, clientKey));
  if (!sameBytes(storedKey, credential.storedKey)) return undefined;
  return hmac(hash, credential.serverKey, signed);
}

// ---- Messages ---------------------------------------------------------------------------------

/** RFC 5802's `printable` minus ",": what a nonce is made of. */
const noncePattern = /^[\x21-\x2b\x2d-\x7e]+$/;

/** A saslname's text: "=2C" and "=3D" stand for "," and "="; any other "=" is an error. */
function decodeSaslName(text: string): string | undefined {
  if (text === "" || /=(?!2C|3D)/.test(text)) return undefined;
  return text.replaceAll("=2C", ",").replaceAll("=3D", "=");
}

export function encodeSaslName(name: string): string {
  return name.replaceAll("=", "=3D").replaceAll(",", "=2C");
}

export interface ClientFirst {
  /** `n,,` or `y,,`, or with an authzid: what client-final's `c=` must carry, base64-encoded. */
  gs2Header: string;
  username: string;
  nonce: string;
  /** The message without its gs2 header: the start of the AuthMessage. */
  bare: string;
  /** Attributes after the nonce (Kafka's `tokenauth=true` for delegation tokens). */
  extensions: Map<string, string>;
}

/** Attributes `k=v` separated by ","; undefined when one is not of that shape. */
function attributes(parts: readonly string[]): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  for (const part of parts) {
    const match = /^([A-Za-z][A-Za-z0-9_]*)=(.*)$/s.exec(part);
    if (match === null) return undefined;
    pairs.push([match[1]!, match[2]!]);
  }
  return pairs;
}

export function parseClientFirst(text: string, nonceLengthMax: number): Parsed<ClientFirst> {
  const fail = (error: string): Parsed<ClientFirst> => ({ ok: false, error: `SCRAM client-first message: ${error}` });
  const match = /^([^,]*),(a=[^,]*)?,(.*)$/s.exec(text);
  if (match === null) return fail("it starts with a gs2 header: n,, (RFC 5802)");
  const [, flag, authzidPart, bare] = match as unknown as [string, string, string | undefined, string];
  if (flag.startsWith("p=")) return fail("channel binding is not offered: use SCRAM-SHA-256 or SCRAM-SHA-512, not a -PLUS mechanism");
  if (flag !== "n" && flag !== "y") return fail(`unknown channel binding flag ${JSON.stringify(flag)}`);
  const parts = bare.split(",");
  if (parts[0]?.startsWith("m=")) return fail("mandatory extensions (m=) are not supported");
  const pairs = attributes(parts);
  if (pairs === undefined || pairs[0]?.[0] !== "n" || pairs[1]?.[0] !== "r") return fail("it is n,,n=<username>,r=<nonce>");
  const username = decodeSaslName(pairs[0][1]);
  if (username === undefined) return fail("the username is empty or has an \"=\" that is not =2C or =3D");
  const nonce = pairs[1][1];
  if (!noncePattern.test(nonce) || nonce.length > nonceLengthMax) return fail(`the nonce is 1 to ${nonceLengthMax} printable characters other than ","`);
  if (authzidPart !== undefined && decodeSaslName(authzidPart.slice(2)) !== username) {
    return fail("an authorization id other than the username is not supported");
  }
  return { ok: true, value: { gs2Header: `${flag},${authzidPart ?? ""},`, username, nonce, bare, extensions: new Map(pairs.slice(2)) } };
}

export function serverFirstMessage(nonce: string, salt: Uint8Array, iterations: number): string {
  return `r=${nonce},s=${encodeBase64(salt)},i=${iterations}`;
}

export interface ServerFirst {
  nonce: string;
  salt: Uint8Array;
  iterations: number;
}

export function parseServerFirst(text: string): Parsed<ServerFirst> {
  const pairs = attributes(text.split(","));
  const salt = pairs?.[1]?.[0] === "s" ? decodeBase64(pairs[1][1]) : undefined;
  const iterations = pairs?.[2]?.[0] === "i" ? Number(pairs[2][1]) : NaN;
  if (pairs?.[0]?.[0] !== "r" || salt === undefined || !Number.isSafeInteger(iterations) || iterations < 1) {
    return { ok: false, error: "SCRAM server-first message: it is r=<nonce>,s=<salt>,i=<iterations>" };
  }
  return { ok: true, value: { nonce: pairs[0][1], salt, iterations } };
}

export interface ClientFinal {
  channelBinding: string;
  nonce: string;
  proof: Uint8Array;
  /** The message up to its proof: the end of the AuthMessage. */
  withoutProof: string;
}

export function parseClientFinal(text: string): Parsed<ClientFinal> {
  const proofAt = text.lastIndexOf(",p=");
  const pairs = proofAt < 0 ? undefined : attributes(text.slice(0, proofAt).split(","));
  const proof = proofAt < 0 ? undefined : decodeBase64(text.slice(proofAt + 3));
  if (pairs?.[0]?.[0] !== "c" || pairs[1]?.[0] !== "r" || proof === undefined) {
    return { ok: false, error: "SCRAM client-final message: it is c=<channel binding>,r=<nonce>,p=<proof>" };
  }
  return { ok: true, value: { channelBinding: pairs[0][1], nonce: pairs[1][1], proof, withoutProof: text.slice(0, proofAt) } };
}

export function serverFinalMessage(serverSignature: Uint8Array): string {
  return `v=${encodeBase64(serverSignature)}`;
}

// ---- The client's side ------------------------------------------------------------------------

export function clientFirstMessage(username: string, nonce: string): { message: string; bare: string } {
  const bare = `n=${encodeSaslName(username)},r=${nonce}`;
  return { message: `n,,${bare}`, bare };
}

/**
 * The client's answer to server-first, and the server-final it must then receive (compare the
 * whole message: a server that does not know the credential cannot make it).
 */
export async function clientFinalMessage(
  hash: ScramHash,
  password: string,
  clientFirstBare: string,
  serverFirst: string,
  /** The nonce to send: server-first's, unless a test plays a client that sends another (librdkafka's, its own in front). */
  nonce?: string,
): Promise<Parsed<{ message: string; serverFinal: string }>> {
  const parsed = parseServerFirst(serverFirst);
  if (!parsed.ok) return parsed;
  const salted = await saltedPassword(hash, password, parsed.value.salt, parsed.value.iterations);
  const clientKey = await hmac(hash, salted, utf8.encode("Client Key"));
  const storedKey = bytes(await crypto.subtle.digest(hash, clientKey));
  const withoutProof = `c=${encodeBase64(utf8.encode("n,,"))},r=${nonce ?? parsed.value.nonce}`;
  const signed = utf8.encode(authMessage(clientFirstBare, serverFirst, withoutProof));
  const proof = xor(clientKey, await hmac(hash, storedKey, signed));
  const serverKey = await hmac(hash, salted, utf8.encode("Server Key"));
  const serverFinal = serverFinalMessage(await hmac(hash, serverKey, signed));
  return { ok: true, value: { message: `${withoutProof},p=${encodeBase64(proof)}`, serverFinal } };
}
