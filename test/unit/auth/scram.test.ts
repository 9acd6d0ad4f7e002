/**
 * SCRAM's computations and messages (src/auth/scram.ts) against RFC 5802's example (SHA-1)
 * and RFC 7677's (SHA-256), both sides; SHA-512, which no RFC gives an example of, against
 * Node's own crypto (pbkdf2, createHmac) as a second implementation.
 */
import { createHash, createHmac, pbkdf2Sync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  authMessage,
  clientFinalMessage,
  clientFirstMessage,
  parseClientFinal,
  parseClientFirst,
  scramCredential,
  serverFinalMessage,
  serverFirstMessage,
  verifyClientProof,
  type ScramHash,
} from "../../../src/auth/scram.ts";
import { decodeBase64, encodeBase64 } from "../../../src/protocol/base64.ts";

const examples = [
  {
    rfc: "RFC 5802 §5 (SCRAM-SHA-1)",
    hash: "SHA-1" as ScramHash,
    clientNonce: "fyko+d2lbbFgONRv9qkxdawL",
    serverFirst: "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
    clientFinal: "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
    serverFinal: "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
  },
  {
    rfc: "RFC 7677 §3 (SCRAM-SHA-256)",
    hash: "SHA-256" as ScramHash,
    clientNonce: "rOprNGfwEbeRWgbNEkqO",
    serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    clientFinal: "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
  },
];

describe.each(examples)("$rfc: user \"user\", password \"pencil\"", (example) => {
  const first = clientFirstMessage("user", example.clientNonce);

  it("the client's messages are the RFC's, and it expects the RFC's server-final", async () => {
    expect(first.message).toBe(`n,,n=user,r=${example.clientNonce}`);
    const final = await clientFinalMessage(example.hash, "pencil", first.bare, example.serverFirst);
    expect(final).toEqual({ ok: true, value: { message: example.clientFinal, serverFinal: example.serverFinal } });
  });

  it("the server, holding only the credential, accepts the RFC's proof and answers the RFC's server-final", async () => {
    const parsedFirst = parseClientFirst(first.message, 256);
    expect(parsedFirst).toMatchObject({ ok: true, value: { gs2Header: "n,,", username: "user", nonce: example.clientNonce, bare: first.bare } });
    const salt = decodeBase64(/s=([^,]+)/.exec(example.serverFirst)![1]!)!;
    const credential = await scramCredential(example.hash, "pencil", salt, 4096);
    expect(serverFirstMessage(/r=([^,]+)/.exec(example.serverFirst)![1]!, salt, 4096)).toBe(example.serverFirst);
    const final = parseClientFinal(example.clientFinal);
    if (!final.ok) throw new Error(final.error);
    expect(final.value.channelBinding).toBe(encodeBase64(new TextEncoder().encode("n,,")));
    const message = authMessage(first.bare, example.serverFirst, final.value.withoutProof);
    const signature = await verifyClientProof(example.hash, credential, message, final.value.proof);
    expect(signature && serverFinalMessage(signature)).toBe(example.serverFinal);
  });

  it("the server refuses a proof made with another password, or for another exchange", async () => {
    const salt = decodeBase64(/s=([^,]+)/.exec(example.serverFirst)![1]!)!;
    const credential = await scramCredential(example.hash, "pencil", salt, 4096);
    const wrong = await clientFinalMessage(example.hash, "pencils", first.bare, example.serverFirst);
    if (!wrong.ok) throw new Error(wrong.error);
    const parsed = parseClientFinal(wrong.value.message);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(await verifyClientProof(example.hash, credential, authMessage(first.bare, example.serverFirst, parsed.value.withoutProof), parsed.value.proof)).toBeUndefined();
    const right = parseClientFinal(example.clientFinal);
    if (!right.ok) throw new Error(right.error);
    const replayed = authMessage(first.bare, example.serverFirst.replace("i=4096", "i=4097"), right.value.withoutProof);
    expect(await verifyClientProof(example.hash, credential, replayed, right.value.proof)).toBeUndefined();
  });
});

describe("SCRAM-SHA-512 (no RFC example): against Node's crypto", () => {
  const password = "trb_0123456789abcdef_secret";
  const salt = new Uint8Array(16).map((_, index) => index * 7);

  it("the credential is Node's PBKDF2/HMAC/SHA-512 of the password", async () => {
    const salted = pbkdf2Sync(password, salt, 4096, 64, "sha512");
    const clientKey = createHmac("sha512", salted).update("Client Key").digest();
    const credential = await scramCredential("SHA-512", password, salt, 4096);
    expect(Buffer.from(credential.storedKey)).toEqual(createHash("sha512").update(clientKey).digest());
    expect(Buffer.from(credential.serverKey)).toEqual(createHmac("sha512", salted).update("Server Key").digest());
  });

  it("a client and the server agree, and the proof is Node's", async () => {
    const credential = await scramCredential("SHA-512", password, salt, 4096);
    const first = clientFirstMessage("0123456789abcdef", "clientnonce");
    const serverFirst = serverFirstMessage("clientnonceservernonce", salt, 4096);
    const final = await clientFinalMessage("SHA-512", password, first.bare, serverFirst);
    if (!final.ok) throw new Error(final.error);
    const parsed = parseClientFinal(final.value.message);
    if (!parsed.ok) throw new Error(parsed.error);
    const message = authMessage(first.bare, serverFirst, parsed.value.withoutProof);
    const salted = pbkdf2Sync(password, salt, 4096, 64, "sha512");
    const clientKey = createHmac("sha512", salted).update("Client Key").digest();
    const clientSignature = createHmac("sha512", createHash("sha512").update(clientKey).digest()).update(message).digest();
    expect(Buffer.from(parsed.value.proof)).toEqual(Buffer.from(clientKey.map((byte, index) => byte ^ clientSignature[index]!)));
    const signature = await verifyClientProof("SHA-512", credential, message, parsed.value.proof);
    expect(signature && serverFinalMessage(signature)).toBe(final.value.serverFinal);
  });
});

describe("parsing the client's messages", () => {
  it("reads a username's escapes, an authorization id equal to it, the y flag and extensions", () => {
    expect(parseClientFirst("n,,n=a=2Cb=3Dc,r=abc", 256)).toMatchObject({ ok: true, value: { username: "a,b=c", nonce: "abc" } });
    expect(parseClientFirst("n,a=user,n=user,r=abc", 256)).toMatchObject({ ok: true, value: { gs2Header: "n,a=user,", bare: "n=user,r=abc" } });
    expect(parseClientFirst("y,,n=user,r=abc", 256)).toMatchObject({ ok: true, value: { gs2Header: "y,," } });
    const withExtension = parseClientFirst("n,,n=user,r=abc,tokenauth=true", 256);
    expect(withExtension.ok && withExtension.value.extensions.get("tokenauth")).toBe("true");
  });

  it.each([
    ["", "gs2 header"],
    ["p=tls-unique,,n=user,r=abc", "channel binding is not offered"],
    ["x,,n=user,r=abc", "channel binding flag"],
    ["n,,m=x,n=user,r=abc", "mandatory extensions"],
    ["n,,r=abc,n=user", "n=<username>,r=<nonce>"],
    ["n,,n=us=er,r=abc", "=2C or =3D"],
    ["n,,n=,r=abc", "the username is empty"],
    ["n,,n=user,r=", "the nonce"],
    ["n,,n=user,r=a\u00e9", "the nonce"],
    [`n,,n=user,r=${"x".repeat(257)}`, "the nonce is 1 to 256"],
    ["n,a=other,n=user,r=abc", "authorization id other than the username"],
  ])("refuses %j, saying why (%s)", (text, why) => {
    const parsed = parseClientFirst(text, 256);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(why);
  });

  it.each(["", "c=biws,r=abc", "r=abc,c=biws,p=AAAA", "c=biws,r=abc,p=not base64!"])("refuses the client-final %j", (text) => {
    expect(parseClientFinal(text)).toEqual({ ok: false, error: expect.stringContaining("c=<channel binding>,r=<nonce>,p=<proof>") });
  });
});
