/**
 * `tributary gateway`'s usage errors, in-process: nothing is started and nothing is requested.
 * The gateway itself (clients, signals, bounds) is tested end to end in test/e2e/gateway-*.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

describe("tributary gateway", () => {
  it("exits 2 with usage for a bad --listen, --advertise or --max-connections, or half of the TLS pair", async () => {
    const server = new FakeServer();
    const cases: [string[], string][] = [
      [["gateway", "--listen", "9092"], '--listen takes HOST:PORT, got "9092"'],
      [["gateway", "--listen", "host:70000"], "--listen takes HOST:PORT"],
      [["gateway", "--advertise", "gw.example"], "--advertise takes HOST:PORT"],
      [["gateway", "--max-connections", "0"], "--max-connections takes a whole number"],
      [["gateway", "--tls-cert", "cert.pem"], "--tls-cert and --tls-key come together"],
      [["gateway", "--bogus"], "unknown option --bogus"],
    ];
    for (const [argv, message] of cases) {
      const run = await cli(server, argv);
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("is in the usage", async () => {
    const help = await cli(new FakeServer(), ["--help"]);
    expect(help.stdout.toString()).toContain("gateway [--listen HOST:PORT] [--advertise HOST:PORT]");
  });
});
