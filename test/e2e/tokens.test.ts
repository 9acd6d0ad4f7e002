/**
 * Scoped tokens and browser write tokens against a real `wrangler dev` with an admin token
 * (API.md, Tokens): the CLI creates a token that may write one topic, produces with it there
 * and is refused elsewhere; a write token minted through the client writes its topic only;
 * once the token is revoked, both it and the write token minted from it are refused within
 * seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTributaryError, Tributary } from "../../src/client/index.ts";
import { buildCli, runCli } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

/** API.md: a revoked token fails "within seconds" (routers trust a token for limits.ts tokenCacheMs, 5 s). */
const revocationDeadlineMs = 15_000;

async function refusedWithin<T>(deadlineMs: number, attempt: () => Promise<T>, refused: (result: T) => boolean): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const result = await attempt();
    if (refused(result) || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("tokens against wrangler dev", () => {
  const adminToken = `e2e-admin-${crypto.randomUUID()}`;
  let server: DevServer;
  let admin: Tributary;

  beforeAll(async () => {
    buildCli();
    // A Worker variable for this server only (`--var`, over any .dev.vars): no file is written.
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    admin = new Tributary({ url: server.url, token: adminToken });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("a scoped token writes its topic only, a write token minted with it too, and revoking it refuses both", async () => {
    const cli = (args: string[], options: { token?: string; stdin?: string } = {}) =>
      runCli(server.url, args, { token: options.token, stdin: options.stdin === undefined ? undefined : Buffer.from(options.stdin) });
    expect((await cli(["topics", "create", "orders", "--partitions", "2"], { token: adminToken })).code).toBe(0);
    expect((await cli(["topics", "create", "payments"], { token: adminToken })).code).toBe(0);
    const anonymous = await cli(["topics", "list"]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain("error: UNAUTHENTICATED");

    const created = await cli(["tokens", "create", "--name", "e2e", "--rule", "topic:orders:literal:write", "--expires-in", "1h", "--json"], { token: adminToken });
    expect(created.code, created.stderr).toBe(0);
    const { id, token } = JSON.parse(created.stdout.toString()) as { id: string; token: string };
    expect(token).toMatch(/^trb_/);
    const listed = await cli(["tokens", "list"], { token: adminToken });
    expect(listed.stdout.toString()).toMatch(new RegExp(`${id}\\s+e2e\\s+\\S+Z\\s+unlimited\\s+topic:orders:literal:write`));
    expect(listed.stdout.toString()).not.toContain(token);

    const produced = await cli(["produce", "orders", "--key-separator", "="], { token, stdin: "k1=one\nk2=two\n" });
    expect(produced.code, produced.stderr).toBe(0);
    expect(produced.stderr).toMatch(/^produced 2 records/);
    const elsewhere = await cli(["produce", "payments"], { token, stdin: "sneaky\n" });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/error: TOPIC_AUTHORIZATION_FAILED: .*payments/);
    const managing = await cli(["tokens", "list"], { token });
    expect(managing.code).toBe(1);
    expect(managing.stderr).toContain("error: CLUSTER_AUTHORIZATION_FAILED");

    // A backend holding the scoped token mints a write token for a page.
    const minted = await new Tributary({ url: server.url, token }).topic("orders").writeToken({ ttlMs: 60_000 });
    expect(minted.topic).toBe("orders");
    expect(JSON.stringify(minted)).not.toContain(minted.token.reveal());
    const page = new Tributary({ url: server.url, token: minted.token });
    expect(await page.topic("orders").produce([{ key: "page", value: "click" }])).toHaveLength(1);
    const pageElsewhere = await page.topic("payments").produce([{ value: "click", partition: 0 }]).catch((e: unknown) => e);
    expect(isTributaryError(pageElsewhere, "TOPIC_AUTHORIZATION_FAILED")).toBe(true);
    const pageReading = await page.topic("orders").fetch(0, 0).catch((e: unknown) => e);
    expect(isTributaryError(pageReading, "TOPIC_AUTHORIZATION_FAILED")).toBe(true);

    const orders = await admin.admin().topics.describe("orders");
    expect(orders.partitions.reduce((sum, p) => sum + p.highWatermark, 0)).toBe(3);
    expect((await admin.admin().topics.describe("payments")).partitions[0]!.highWatermark).toBe(0);

    const revoked = await cli(["tokens", "revoke", id], { token: adminToken });
    expect(revoked.code, revoked.stderr).toBe(0);
    const afterRevoke = await refusedWithin(revocationDeadlineMs, () => cli(["produce", "orders"], { token, stdin: "late\n" }), (run) => run.code !== 0);
    expect(afterRevoke.code).toBe(1);
    expect(afterRevoke.stderr).toContain("error: UNAUTHENTICATED");
    const pageAfterRevoke = await refusedWithin(
      revocationDeadlineMs,
      () => page.topic("orders").produce([{ value: "late", partition: 0 }]).catch((e: unknown) => e),
      (result) => isTributaryError(result),
    );
    expect(isTributaryError(pageAfterRevoke, "UNAUTHENTICATED")).toBe(true);
    expect((await cli(["tokens", "list", "--json"], { token: adminToken })).stdout.toString()).toContain('"tokens": []');
  });

  it("a token that may only read a topic is refused its produce with the topic's 403 (not the cluster's), by the CLI and the client alike", async () => {
    await admin.admin().topics.create({ name: "audit" });
    const reader = await admin.admin().tokens.create({ name: "reader", rules: [{ resource: "topic", name: "audit", patternType: "literal", operations: ["read"] }] });
    const refused = await runCli(server.url, ["produce", "audit"], { token: reader.token.reveal(), stdin: Buffer.from("x\n") });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: TOPIC_AUTHORIZATION_FAILED: not authorized to write topic "audit"\n');
    expect(refused.stderr).toContain("  the token needs a rule such as --rule topic:audit:literal:write");
    expect(refused.stderr).not.toContain("CLUSTER_AUTHORIZATION_FAILED");

    // The client's idempotent producer (the default) asks for its producer id naming the topic it writes.
    const producer = new Tributary({ url: server.url, token: reader.token }).producer();
    const error = await producer.send({ topic: "audit", messages: [{ value: "x" }] }).catch((e: unknown) => e);
    await producer.close();
    if (!isTributaryError(error, "TOPIC_AUTHORIZATION_FAILED")) throw new Error(`expected the topic's 403, got ${String(error)}`);
    expect(error.message).toBe('not authorized to write topic "audit"');
    expect(error.data).toMatchObject({ resource: "topic", name: "audit", operation: "write" });
    expect((await admin.admin().topics.describe("audit")).partitions[0]!.highWatermark).toBe(0);
  });
});
