/**
 * `tributary consume --follow` outlives a `wrangler dev` restart (issue 12, item 7): a group
 * consumer and a partition follower keep retrying while the server is gone — far longer than
 * the CLI's 3 s of retries for one-shot commands — say so on stderr, and print what is produced
 * once the server is back on the same port and state. The group member's session (6 s) expires
 * during the outage, so the consumer may have to join anew; it resumes from its commits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { buildCli, spawnCli, type CliProcess } from "./support/cli.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

/** Longer than the CLI's retries of one call (5, about 3 s) and than the group session (6 s). */
const outageMs = 8_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything a process printed on stdout so far, as lines. */
function printed(cli: { stdout: Buffer[] }): string[] {
  const text: string = Buffer.concat(cli.stdout).toString("utf8");
  return text.split("\n").filter((line) => line !== "");
}

interface Watched extends CliProcess {
  stdout: Buffer[];
  stderr: () => string;
}

function watch(cli: CliProcess): Watched {
  const stdout: Buffer[] = [];
  let stderr = "";
  cli.child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
  cli.child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return { ...cli, stdout, stderr: () => stderr };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("a --follow consumer across a wrangler dev restart", () => {
  let server: DevServer;
  const started: Watched[] = [];

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
  });

  afterAll(async () => {
    for (const cli of started) if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
    await server?.stop();
  });

  it("keeps retrying while the server is down, says so, and gets what is produced after it is back", async () => {
    const client = new Tributary({ url: server.url });
    await client.admin().topics.create({ name: "events", partitions: 2 });
    const produce = (prefix: string) => client.topic("events").produce([0, 1, 2, 3].map((i) => ({ value: `${prefix}-${i}`, partition: i % 2 })));
    await produce("before");

    const group = watch(spawnCli(server.url, ["consume", "events", "--group", "g", "--from-beginning", "--follow", "--session-timeout-ms", "6000", "--wait-ms", "2000"]));
    const follower = watch(spawnCli(server.url, ["consume", "events", "--partition", "0", "--offset", "0", "--follow", "--wait-ms", "2000"]));
    started.push(group, follower);
    await until(() => printed(group).length === 4 && printed(follower).length === 2, "the records before the outage");
    // The group committed what it printed (with its next poll): a rejoin resumes after it.
    await until(async () => (await client.admin().groups.offsets("g")).every((entry) => entry.offset === 2), "the group's commit");

    await server.halt();
    await until(() => [group, follower].every((cli) => cli.stderr().includes("server unreachable (")), "both to say the server is unreachable");
    await sleep(outageMs);
    for (const cli of [group, follower]) expect(cli.child.exitCode, `still running after the outage:\n${cli.stderr()}`).toBeNull();
    await server.resume();

    await produce("after");
    await until(() => printed(group).length >= 8 && printed(follower).length >= 4, "the records after the restart");
    for (const cli of [group, follower]) cli.child.kill("SIGINT");
    const [groupDone, followerDone] = await Promise.all([group.done, follower.done]);

    expect(groupDone.code, groupDone.stderr).toBe(0);
    expect(followerDone.code, followerDone.stderr).toBe(0);
    // Every record once: the rejoined member went on from the commit, not from the beginning.
    expect(printed(group).sort()).toEqual(["after-0", "after-1", "after-2", "after-3", "before-0", "before-1", "before-2", "before-3"]);
    expect(printed(follower)).toEqual(["before-0", "before-2", "after-0", "after-2"]);
    for (const done of [groupDone, followerDone]) {
      expect(done.stderr).toMatch(/^server unreachable \(connection (refused|reset|closed( by the server)?) at http:\/\/127\.0\.0\.1:\d+\); retrying in [\d.]+ m?s…$/m);
      expect(done.stderr).not.toContain("REQUEST_TIMED_OUT");
    }
  });
});
