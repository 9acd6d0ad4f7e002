/**
 * OAUTHBEARER's client response (RFC 7628 §3.1) as Kafka's clients write it: the bearer token
 * is what the gateway takes (src/gateway/handlers/sasl.ts); the authorization id and extensions
 * are not used; anything else is refused with the shape it should have.
 */
import { describe, expect, it } from "vitest";
import { oauthBearerToken } from "../../../src/gateway/handlers/sasl.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("OAUTHBEARER's client response", () => {
  it.each([
    ["kafkajs, franz-go", "n,,\x01auth=Bearer trb_0123456789abcdef_s3cret\x01\x01"],
    ["with an authorization id (franz-go's Zid, the Java client's)", "n,a=someone,\x01auth=Bearer trb_0123456789abcdef_s3cret\x01\x01"],
    ["with extensions (@platformatic/kafka, the Java client)", "n,,\x01auth=Bearer trb_0123456789abcdef_s3cret\x01traceId=abc\x01logicalCluster=x=y\x01\x01"],
    ["a lower-case scheme", "n,,\x01auth=bearer trb_0123456789abcdef_s3cret\x01\x01"],
    ["the y flag", "y,,\x01auth=Bearer trb_0123456789abcdef_s3cret\x01\x01"],
  ])("gives the bearer token: %s", (_client, text) => {
    expect(oauthBearerToken(bytes(text))).toEqual({ ok: true, token: "trb_0123456789abcdef_s3cret" });
  });

  it.each([
    ["nothing", ""],
    ["the RFC's lone separator (a client answering an error challenge)", "\x01"],
    ["channel binding", "p=tls-unique,,\x01auth=Bearer t\x01\x01"],
    ["no closing separator", "n,,\x01auth=Bearer t\x01"],
    ["a pair without =", "n,,\x01auth=Bearer t\x01junk\x01\x01"],
    ["no auth", "n,,\x01host=example\x01\x01"],
    ["another scheme", "n,,\x01auth=Basic dXNlcjpwYXNz\x01\x01"],
    ["no token", "n,,\x01auth=Bearer \x01\x01"],
  ])("refuses %s, saying what it should be", (_what, text) => {
    expect(oauthBearerToken(bytes(text))).toEqual({ ok: false, error: expect.stringContaining("n,,\\x01auth=Bearer <token>\\x01\\x01") });
  });
});
