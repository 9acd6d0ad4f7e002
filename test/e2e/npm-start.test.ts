/**
 * `npm start -- --port <port>` works as the README says: `wrangler dev` through the npm
 * script, on 127.0.0.1 (the `[dev]` table of wrangler.toml), with arguments after `--` passed
 * through; and stopping its process group leaves nothing running.
 */
import { afterAll, describe, expect, it } from "vitest";
import { livingMembers, startDevServer, withoutLocalVariableFiles, type DevServer } from "./support/wrangler-dev.ts";

describe("npm start", () => {
  let server: DevServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the API on 127.0.0.1 at the port given after --, and stops with its process group", async () => {
    server = await startDevServer(
      (port, inspectorPort, persistTo) => ({
        command: "npm",
        args: ["start", "--", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persistTo, ...withoutLocalVariableFiles.args],
      }),
      { env: withoutLocalVariableFiles.env },
    );
    expect(server.output()).toContain(`Ready on ${server.url}`);

    const health = await fetch(`${server.url}/v1/health`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: "ok", tokenRequired: false } });

    const topics = await fetch(`${server.url}/v1/topics`);
    expect(topics.status).toBe(200);
    expect(topics.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await topics.json()).toEqual({ topics: [] }); // a fresh --persist-to directory

    const { processGroupId } = server;
    expect(livingMembers(processGroupId).some((line) => line.includes("workerd")), "workerd runs in the group").toBe(true);
    await server.stop();
    expect(livingMembers(processGroupId)).toEqual([]);
    await expect(fetch(`${server.url}/v1/health`)).rejects.toThrow();
  });
});
