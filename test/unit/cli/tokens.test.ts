import { describe, expect, it } from "vitest";
import { durationValue, UsageError } from "../../../src/cli/args.ts";
import { formatRule, parseRule } from "../../../src/cli/tokens.ts";
import { cli, FakeServer } from "./support.ts";

const admin = { TRIBUTARY_TOKEN: "the-admin-token" };

function securedServer() {
  const server = new FakeServer();
  server.token = admin.TRIBUTARY_TOKEN;
  server.createTopic("orders", 2);
  server.createTopic("payments", 1);
  return server;
}

const bodyOf = (request: { body: Uint8Array }) => JSON.parse(new TextDecoder().decode(request.body));

describe("--rule", () => {
  it("reads resource:name:patternType:operations, a name with colons included, and prints back the same", () => {
    expect(parseRule("topic:orders:literal:read,write")).toEqual({ resource: "topic", name: "orders", patternType: "literal", operations: ["read", "write"] });
    expect(parseRule("group:app-:prefixed:read")).toEqual({ resource: "group", name: "app-", patternType: "prefixed", operations: ["read"] });
    expect(parseRule("group:a:b:literal:read").name).toBe("a:b");
    expect(parseRule("topic:*:literal:describe,describe").operations).toEqual(["describe"]);
    for (const text of ["topic:orders:literal:read,write", "group:a:b:prefixed:read", "cluster:tributary:literal:create"]) {
      expect(formatRule(parseRule(text))).toBe(text);
    }
  });

  it("refuses what is not a rule, naming what is wrong", () => {
    expect(() => parseRule("topic:orders:read")).toThrow(/resource:name:patternType:operations/);
    expect(() => parseRule("topics:orders:literal:read")).toThrow(/the resource is one of topic, group, cluster/);
    expect(() => parseRule("topic:orders:exact:read")).toThrow(/the pattern type is one of literal, prefixed/);
    expect(() => parseRule("topic:orders:literal:read,produce")).toThrow(/"produce"/);
    expect(() => parseRule("topic::literal:read")).toThrow(/name is empty/);
  });
});

describe("durations", () => {
  it("takes ms, s, m, h and d, and nothing else", () => {
    expect(["500ms", "30s", "10m", "1h", "7d"].map((text) => durationValue({ ttl: text }, "ttl"))).toEqual([500, 30_000, 600_000, 3_600_000, 604_800_000]);
    expect(durationValue({}, "ttl")).toBeUndefined();
    for (const text of ["10", "1.5h", "-1h", "0s", "h", "1w"]) expect(() => durationValue({ ttl: text }, "ttl")).toThrow(UsageError);
  });
});

describe("tributary tokens", () => {
  it("create sends the rules, name, expiry and quotas, and prints the secret once, apart", async () => {
    const server = securedServer();
    const before = Date.now();
    const run = await cli(
      server,
      ["tokens", "create", "--name", "billing", "--rule", "topic:orders:literal:read,write", "--rule", "group:app-:prefixed:read", "--expires-in", "1h", "--produce-bytes-per-second", "1000000", "--requests-per-second", "50"],
      { env: admin },
    );
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const sent = bodyOf(server.requestsTo(/^\/v1\/tokens$/, "POST")[0]!);
    expect(sent).toMatchObject({
      name: "billing",
      rules: [
        { resource: "topic", name: "orders", patternType: "literal", operations: ["read", "write"] },
        { resource: "group", name: "app-", patternType: "prefixed", operations: ["read"] },
      ],
      quotas: { produceBytesPerSecond: 1_000_000, requestsPerSecond: 50 },
    });
    expect(sent.expiresAt - before).toBeGreaterThanOrEqual(3_600_000);
    expect(sent.expiresAt - Date.now()).toBeLessThanOrEqual(3_600_000);
    const out = run.stdout.toString();
    expect(out).toMatch(/^created token [0-9a-f]{16} "billing", expires \d{4}-\d\d-\d\dT[\d:.]+Z, quotas produce 1,000,000 B\/s, 50 requests\/s\n/);
    expect(out).toContain("  topic:orders:literal:read,write\n  group:app-:prefixed:read\n");
    expect(out).toMatch(/shown this once.*\ntrb_[^\n]+\n$/);
    expect(out.match(/trb_/g)).toHaveLength(1);
  });

  it("create --quiet prints only the secret, --json everything with it; the token then works with its rules", async () => {
    const server = securedServer();
    const quiet = await cli(server, ["tokens", "create", "--rule", "topic:orders:literal:write", "--quiet"], { env: admin });
    const token = quiet.stdout.toString().trim();
    expect(token).toMatch(/^trb_[^\s]+$/);
    const json = JSON.parse((await cli(server, ["tokens", "create", "--rule", "topic:orders:literal:write", "--json"], { env: admin })).stdout.toString());
    expect(json).toMatchObject({ id: expect.any(String), token: expect.stringMatching(/^trb_/), name: null, expiresAt: null, quotas: {} });

    const produced = await cli(server, ["produce", "orders"], { stdin: "a\nb\n", env: { TRIBUTARY_TOKEN: token } });
    expect(produced.code, produced.stderr).toBe(0);
    const refused = await cli(server, ["produce", "payments"], { stdin: "a\n", env: { TRIBUTARY_TOKEN: token } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: TOPIC_AUTHORIZATION_FAILED: not authorized to describe topic "payments"\n');
    expect(refused.stderr).toContain("  the token needs a rule such as --rule topic:payments:literal:describe (tokens are created with the admin token: tributary tokens create)\n");
  });

  it("a token that may only read the topic is refused its produce as a write of that topic, with the rule that allows it", async () => {
    const server = securedServer();
    const token = (await cli(server, ["tokens", "create", "--rule", "topic:orders:literal:read", "--quiet"], { env: admin })).stdout.toString().trim();
    const refused = await cli(server, ["produce", "orders"], { stdin: "a\n", env: { TRIBUTARY_TOKEN: token } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "0 records were acknowledged before the failure; resume from line 1\n" +
        'error: TOPIC_AUTHORIZATION_FAILED: not authorized to write topic "orders"\n' +
        "  the token needs a rule such as --rule topic:orders:literal:write (tokens are created with the admin token: tributary tokens create)\n",
    );
  });

  it("lists tokens without secrets, as a table and as JSON, and revokes one by id", async () => {
    const server = securedServer();
    const created = JSON.parse((await cli(server, ["tokens", "create", "--name", "ci", "--rule", "topic:ci-:prefixed:read,write", "--json"], { env: admin })).stdout.toString());
    const list = await cli(server, ["tokens", "list"], { env: admin });
    expect(list.stdout.toString()).toBe(
      `ID                NAME  EXPIRES  QUOTAS     RULES\n${created.id}  ci    never    unlimited  topic:ci-:prefixed:read,write\n`,
    );
    expect(list.stdout.toString()).not.toContain(created.token);
    const json = JSON.parse((await cli(server, ["tokens", "list", "--json"], { env: admin })).stdout.toString());
    expect(json).toEqual({ tokens: [{ id: created.id, name: "ci", rules: created.rules, expiresAt: null, quotas: {} }] });

    const revoked = await cli(server, ["tokens", "revoke", created.id], { env: admin });
    expect(revoked).toMatchObject({ code: 0, stderr: "" });
    expect(revoked.stdout.toString()).toContain(`revoked token ${created.id}`);
    expect((await cli(server, ["tokens", "list"], { env: admin })).stdout.toString()).toBe("no tokens\n");
    const again = await cli(server, ["tokens", "revoke", created.id], { env: admin });
    expect(again).toMatchObject({ code: 1 });
    expect(again.stderr).toContain("error: NOT_FOUND");
    const refused = await cli(server, ["topics", "list"], { env: { TRIBUTARY_TOKEN: created.token } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("error: UNAUTHENTICATED");
    expect(refused.stderr).toContain("missing, unknown, expired or revoked");
  });

  it("says that managing tokens takes the admin token", async () => {
    const server = securedServer();
    const token = (await cli(server, ["tokens", "create", "--rule", "topic:orders:literal:write", "--quiet"], { env: admin })).stdout.toString().trim();
    const run = await cli(server, ["tokens", "list"], { env: { TRIBUTARY_TOKEN: token } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: CLUSTER_AUTHORIZATION_FAILED");
    expect(run.stderr).toContain("managing tokens takes the admin token");
  });

  it("exits 2 on bad usage, before any request, and never sends a whole token as an id", async () => {
    const server = securedServer();
    for (const argv of [
      ["tokens", "create"],
      ["tokens", "create", "--rule", "topic:orders:read"],
      ["tokens", "create", "--rule", "topic:orders:literal:read", "--expires-in", "soon"],
      ["tokens", "create", "--rule", "topic:orders:literal:read", "--produce-bytes-per-second", "0"],
      ["tokens", "create", "extra", "--rule", "topic:orders:literal:read"],
      ["tokens", "revoke"],
      ["tokens", "revoke", "trb_0000000000000001_secretsecret"],
      ["tokens", "list", "--rule", "topic:a:literal:read"],
      ["topics", "write-token"],
      ["topics", "write-token", "orders", "--ttl", "10"],
    ]) {
      const run = await cli(server, argv, { env: admin });
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).not.toContain("secretsecret");
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe("tributary topics write-token", () => {
  it("mints a token for the topic with --ttl, and prints it (--quiet: only it; --json: with topic and expiry)", async () => {
    const server = securedServer();
    const run = await cli(server, ["topics", "write-token", "orders", "--ttl", "10m"], { env: admin });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(bodyOf(server.requests.at(-1)!)).toEqual({ ttlMs: 600_000 });
    expect(run.stdout.toString()).toMatch(/^write token for topic orders \(produce only\), expires [\dT:.Z-]+:\ntrw_\S+\n$/);

    const token = (await cli(server, ["topics", "write-token", "orders", "--quiet"], { env: admin })).stdout.toString().trim();
    expect(bodyOf(server.requests.at(-1)!)).toEqual({});
    const json = JSON.parse((await cli(server, ["topics", "write-token", "orders", "--json"], { env: admin })).stdout.toString());
    expect(json).toMatchObject({ token: expect.stringMatching(/^trw_/), topic: "orders", expiresAt: expect.any(Number) });

    expect((await cli(server, ["produce", "orders"], { stdin: "click\n", env: { TRIBUTARY_TOKEN: token } })).code).toBe(0);
    const elsewhere = await cli(server, ["produce", "payments"], { stdin: "click\n", env: { TRIBUTARY_TOKEN: token } });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("TOPIC_AUTHORIZATION_FAILED");
  });
});
