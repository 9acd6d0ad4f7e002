import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Tributary } from "../../../src/client/index.ts";
import { FakeServer } from "./support/fake-server.ts";

const token = "tok_live_5f3a9c0e7b1d";

describe("the token never prints", () => {
  const client = new Tributary({ url: "https://tributary.example.com/", token, fetch: async () => new Response("{}") });

  it("not in String(), JSON.stringify or util.inspect of the client", () => {
    for (const shown of [String(client), `${client}`, JSON.stringify(client), inspect(client), inspect(client, { showHidden: true, depth: 10 })]) {
      expect(shown).not.toContain(token);
    }
    expect(String(client)).toContain("<redacted>");
    expect(JSON.parse(JSON.stringify(client))).toMatchObject({ url: "https://tributary.example.com", token: "<redacted>" });
  });

  it("not in its config, however it is printed", () => {
    for (const shown of [String(client.config.token), JSON.stringify(client.config), inspect(client.config, { depth: 10 }), JSON.stringify({ nested: client.config })]) {
      expect(shown).not.toContain(token);
      expect(shown).toContain("<redacted>");
    }
    expect(Object.isFrozen(client.config)).toBe(true);
  });

  it("not in the error of a refused request", async () => {
    const server = new FakeServer();
    server.token = "the-right-one";
    const refused = new Tributary({ url: "http://tributary.test", token, fetch: server.fetch });
    const error = await refused.admin().topics.list().catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("UNAUTHENTICATED");
    expect(`${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 10 })}`).not.toContain(token);
  });

  it("is sent as a bearer token, and only there", async () => {
    const server = new FakeServer();
    server.token = token;
    const authorized = new Tributary({ url: "http://tributary.test", token, fetch: server.fetch });
    await expect(authorized.admin().topics.list()).resolves.toEqual([]);
    expect(server.requests[0]!.headers.get("authorization")).toBe(`Bearer ${token}`);
    expect(server.requests[0]!.path + server.requests[0]!.query.toString()).not.toContain(token);
  });
});

describe("construction", () => {
  it("takes exactly one of url and binding", () => {
    expect(() => new Tributary({})).toThrow(/exactly one/);
    expect(() => new Tributary({ url: "http://a", binding: { fetch: async () => new Response() } })).toThrow(/exactly one/);
    expect(() => new Tributary({ url: "ftp://a" })).toThrow(/http/);
    expect(() => new Tributary({ url: "http://user:secret@a" })).toThrow(/token/);
  });

  it("calls a service binding's fetch with the same HTTP API", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 2);
    const client = new Tributary({ binding: { fetch: (request: Request) => server.fetch(request) } });
    expect(await client.admin().topics.list()).toEqual([{ name: "orders", partitions: 2, replicationFactor: 1 }]);
    expect(String(client)).toContain("service binding");
  });
});
