/**
 * The service binding (src/service.ts) goes through the same authentication and
 * authorization as HTTP: a Worker bound to Tributary passes a token in each call's options.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TributaryService } from "../../../src/service.ts";
import { createTopic, uniqueTopic } from "../support/http.ts";
import { adminToken, allOn, securedEnv } from "../support/secured.ts";

const service = new TributaryService(createExecutionContext(), securedEnv);

describe("TributaryService without TRIBUTARY_ADMIN_TOKEN", () => {
  it("creates no token (SECURITY_DISABLED), scoped or write, as over HTTP", async () => {
    const open = new TributaryService(createExecutionContext(), env);
    const topic = uniqueTopic("rpc-open");
    await createTopic(topic);
    expect(await open.createToken({ rules: [allOn("topic", topic)] })).toMatchObject({ ok: false, error: { code: "SECURITY_DISABLED" } });
    expect(await open.createWriteToken(topic, {})).toMatchObject({ ok: false, error: { code: "SECURITY_DISABLED" } });
  });
});

describe("TributaryService with TRIBUTARY_ADMIN_TOKEN set", () => {
  it("refuses calls without a token or with a wrong one", async () => {
    const topic = uniqueTopic("rpc-auth");
    await createTopic(topic);
    for (const options of [undefined, { token: "wrong" }]) {
      const produced = await service.produce(topic, { records: [{ value: "v" }] }, options);
      expect(produced).toMatchObject({ ok: false, error: { code: "UNAUTHENTICATED" } });
      expect(await service.listTopics(options)).toMatchObject({ ok: false, error: { code: "UNAUTHENTICATED" } });
    }
  });

  it("authorizes a scoped token's calls by its rules, and manages tokens only for the admin", async () => {
    const topic = uniqueTopic("rpc-scoped");
    const other = uniqueTopic("rpc-scoped-other");
    await createTopic(topic);
    await createTopic(other);
    const created = await service.createToken({ rules: [allOn("topic", topic)] }, { token: adminToken });
    if (!created.ok) throw new Error(created.error.message);
    const token = String(created.value.token);
    expect(await service.produce(topic, { records: [{ value: "v" }] }, { token })).toMatchObject({ ok: true });
    expect(await service.produce(other, { records: [{ value: "v" }] }, { token })).toMatchObject({ ok: false, error: { code: "TOPIC_AUTHORIZATION_FAILED" } });
    expect(await service.listTokens({ token })).toMatchObject({ ok: false, error: { code: "CLUSTER_AUTHORIZATION_FAILED" } });
    const minted = await service.createWriteToken(topic, { ttlMs: 60_000 }, { token });
    expect(minted).toMatchObject({ ok: true, value: { topic } });
    expect(await service.revokeToken(String(created.value.id), { token: adminToken })).toEqual({ ok: true, value: undefined });
  });
});
