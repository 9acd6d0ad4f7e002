import { describe, expect, it } from "vitest";
import { retryLine } from "../../../src/cli/retry-log.ts";
import { cli, FakeServer } from "./support.ts";

describe("the CLI's retry lines on stderr", () => {
  it("says the server is unreachable and when it tries again, then fails with NETWORK_EXCEPTION and the hint", async () => {
    const server = new FakeServer();
    server.down = true;
    const run = await cli(server, ["topics", "list"]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split("\n");
    const retries = lines.filter((line) => line.startsWith("server unreachable"));
    expect(retries).toHaveLength(5); // the CLI's 5 retries, then the error
    for (const line of retries) expect(line).toMatch(/^server unreachable \(connection refused at http:\/\/tributary\.test\); retrying in (\d+ ms|\d+(\.\d)? s)…$/);
    expect(lines.slice(retries.length)).toEqual([
      "error: NETWORK_EXCEPTION: GET /v1/topics: connection refused at http://tributary.test",
      '  reason: "ECONNREFUSED"  server: "http://tributary.test"',
      "  is Tributary running there? set --url or TRIBUTARY_URL (default http://127.0.0.1:8787)",
    ]);
  });

  it("formats seconds and other codes", () => {
    const fields = { request: "GET /v1/topics", code: "NETWORK_EXCEPTION", detail: "connection refused at http://127.0.0.1:8787", delayMs: 2_000 };
    expect(retryLine("ignored", fields)).toBe("server unreachable (connection refused at http://127.0.0.1:8787); retrying in 2 s…");
    expect(retryLine("ignored", { ...fields, code: "BROKER_BUSY", detail: "busy", delayMs: 1_640 })).toBe("GET /v1/topics: BROKER_BUSY: busy; retrying in 1.6 s…");
    expect(retryLine("member m of group g is unknown to the server; joining anew", undefined)).toBe("member m of group g is unknown to the server; joining anew");
  });
});
