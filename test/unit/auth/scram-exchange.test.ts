/**
 * The deployment's side of a relayed SCRAM exchange (src/auth/scram-exchange.ts): the state
 * carried from the first step to the last is sealed under the admin token and expires; the
 * username must be a scoped token's id; and session tokens, exchanges and topic tokens are
 * signed with keys of their own, so none passes for another.
 */
import { describe, expect, it } from "vitest";
import { clientFinalMessage, clientFirstMessage, scramCredential } from "../../../src/auth/scram.ts";
import { finishExchange, openExchange, readClientFirst, sealExchange, startExchange, type ScramExchange } from "../../../src/auth/scram-exchange.ts";
import { signSessionToken, signWriteToken, verifySessionToken, verifyWriteToken } from "../../../src/auth/token-format.ts";
import { scramExchangeTtlMs } from "../../../src/limits.ts";

const admin = "unit-admin-token";
const tokenId = "0123456789abcdef";
const password = `trb_${tokenId}_password`;

async function started(now: number) {
  const client = clientFirstMessage(tokenId, "clientnonce");
  const read = readClientFirst(client.message);
  if (!read.ok) throw new Error(read.error);
  const credential = await scramCredential("SHA-256", password, new Uint8Array(16).fill(3), 4096);
  return { client, credential, ...startExchange("SCRAM-SHA-256", read.value, credential, now) };
}

describe("a SCRAM exchange between its two steps", () => {
  it("opens as it was sealed until it expires, and only under the admin token it was sealed with", async () => {
    const now = 1_700_000_000_000;
    const { exchange, serverFirst } = await started(now);
    expect(serverFirst).toMatch(/^r=clientnonce[A-Za-z0-9+/=]{32},s=AwMDAwMDAwMDAwMDAwMDAw==,i=4096$/);
    const sealed = await sealExchange(exchange, admin);
    expect(await openExchange(sealed, admin, now + scramExchangeTtlMs - 1)).toEqual(exchange);
    expect(await openExchange(sealed, admin, now + scramExchangeTtlMs)).toBeUndefined();
    expect(await openExchange(sealed, "another-admin", now)).toBeUndefined();
    expect(await openExchange(`${sealed.slice(0, -4)}AAAA`, admin, now)).toBeUndefined();
  });

  it("finishes with server-final when the client's proof holds, and says why not otherwise", async () => {
    const { client, credential, exchange, serverFirst } = await started(0);
    const final = await clientFinalMessage("SHA-256", password, client.bare, serverFirst);
    if (!final.ok) throw new Error(final.error);
    expect(await finishExchange(exchange, final.value.message, credential)).toEqual({ ok: true, value: final.value.serverFinal });
    const wrong = await clientFinalMessage("SHA-256", `${password}!`, client.bare, serverFirst);
    if (!wrong.ok) throw new Error(wrong.error);
    expect(await finishExchange(exchange, wrong.value.message, credential)).toEqual({ ok: false, error: expect.stringContaining(`not the token whose id is ${tokenId}`) });
    // librdkafka 2.x sends its own nonce in front of server-first's once more; Kafka's broker takes it, and so does this.
    const combined = /^r=([^,]*)/.exec(serverFirst)![1]!;
    const librdkafka = await clientFinalMessage("SHA-256", password, client.bare, serverFirst, `clientnonce${combined}`);
    if (!librdkafka.ok) throw new Error(librdkafka.error);
    expect(await finishExchange(exchange, librdkafka.value.message, credential)).toEqual({ ok: true, value: librdkafka.value.serverFinal });
    const otherNonce = await clientFinalMessage("SHA-256", password, client.bare, serverFirst, `${combined}x`);
    if (!otherNonce.ok) throw new Error(otherNonce.error);
    expect(await finishExchange(exchange, otherNonce.value.message, credential)).toEqual({ ok: false, error: expect.stringContaining("its nonce is not the one server-first answered") });
    const otherBinding: ScramExchange = { ...exchange, gs2Header: "y,," };
    expect(await finishExchange(otherBinding, final.value.message, credential)).toEqual({ ok: false, error: expect.stringContaining("channel binding") });
  });

  it("takes a scoped token's id as the username, nothing else, and no delegation tokens", () => {
    expect(readClientFirst(`n,,n=${tokenId},r=x`)).toMatchObject({ ok: true, value: { tokenId } });
    expect(readClientFirst("n,,n=admin,r=x")).toEqual({ ok: false, error: expect.stringContaining("the admin token and write, read and session tokens have no SCRAM credentials") });
    expect(readClientFirst(`n,,n=${tokenId},r=x,tokenauth=true`)).toEqual({ ok: false, error: expect.stringContaining("delegation tokens") });
  });
});

describe("what the deployment signs: each kind with its own key", () => {
  it("a session token is not a write token, nor an exchange, and the other way round", async () => {
    const session = await signSessionToken({ parent: tokenId, expiresAt: 5 }, admin);
    expect(session).toMatch(/^trs_/);
    expect(await verifySessionToken(session, admin)).toEqual({ parent: tokenId, expiresAt: 5 });
    expect(await verifySessionToken(session, "another-admin")).toBeUndefined();
    expect(await verifyWriteToken(`trw_${session.slice(4)}`, admin)).toBeUndefined();
    expect(await openExchange(session.slice(4), admin, 0)).toBeUndefined();
    const write = await signWriteToken({ parent: tokenId, topic: "t", expiresAt: 5 }, admin);
    expect(await verifySessionToken(`trs_${write.slice(4)}`, admin)).toBeUndefined();
  });
});
