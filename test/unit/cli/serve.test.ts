/**
 * `tributary serve`'s usage errors, in-process: nothing is started and nothing is requested.
 * Serving itself (signals, restarts, SIGKILL) is tested end to end in test/e2e/selfhost-serve.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

describe("tributary serve", () => {
  it("exits 2 with usage without --data, with a bad --port or an unknown option", async () => {
    const server = new FakeServer();
    for (const argv of [["serve"], ["serve", "--data", ""], ["serve", "--data", "d", "--port", "70000"], ["serve", "--data", "d", "--port", "x"], ["serve", "--data", "d", "--bogus"]]) {
      const run = await cli(server, argv);
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).toMatch(/^error: .+\nrun `tributary --help` for usage\n$/);
    }
    expect((await cli(server, ["serve"])).stderr).toContain("serve needs --data DIR");
    expect(server.requests).toHaveLength(0);
  });

  it("is in the usage", async () => {
    const help = await cli(new FakeServer(), ["--help"]);
    expect(help.stdout.toString()).toContain("serve --data DIR [--port N] [--host H] [--admin-token T]");
  });
});
