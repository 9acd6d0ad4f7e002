/**
 * `tributary consume --follow` on streams (against the fake server's SSE): one partition with
 * --partition, every partition without --group or --partition; resuming across a server that
 * goes away (retry lines on stderr); --max; Ctrl-C; and `topics read-token`.
 */
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function seeded(partitions = 1) {
  const server = new FakeServer();
  server.createTopic("orders", partitions);
  await cli(server, ["produce", "orders", "--partition", "0"], { stdin: "a\nb\n" });
  return server;
}

/** Runs a --follow consume until `lines` lines are printed or `act` is done, then Ctrl-C. */
async function follow(server: FakeServer, argv: string[], act: (printed: () => string) => Promise<void>, webSocket?: FakeServer["streams"]["WebSocket"]) {
  let interrupt: (() => void) | undefined;
  const chunks: Buffer[] = [];
  const { PassThrough } = await import("node:stream");
  const stdout = new PassThrough();
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const printed = () => Buffer.concat(chunks).toString("utf8");
  const running = cli(server, argv, { stdout, webSocket, onInterrupt: (handler) => (interrupt = handler) });
  await act(printed);
  interrupt!();
  const run = await running;
  return { ...run, printed: printed() };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await sleep(5);
  expect(condition()).toBe(true);
}

describe("tributary consume --follow (streams)", () => {
  it("streams one partition with --partition, and prints what is produced later, until Ctrl-C (exit 0)", async () => {
    const server = await seeded();
    const run = await follow(server, ["consume", "orders", "--partition", "0", "--from-beginning", "--follow"], async (printed) => {
      await until(() => printed() === "a\nb\n");
      await cli(server, ["produce", "orders", "--partition", "0"], { stdin: "c\n" });
      await until(() => printed() === "a\nb\nc\n");
    });
    expect(run.code).toBe(0);
    expect(run.printed).toBe("a\nb\nc\n");
    expect(server.streams.sse.connections).toHaveLength(1);
    expect(server.requestsTo(/\/records$/, "GET").every((request) => request.headers.get("accept") === "text/event-stream")).toBe(true);
  });

  it("rides out the server going away with a retry line per attempt, and resumes where it stopped", async () => {
    const server = await seeded();
    server.streams.sse.breakAfterFrames = 1;
    const run = await follow(server, ["consume", "orders", "--partition", "0", "--offset", "0", "--follow"], async (printed) => {
      await until(() => printed() === "a\nb\n");
      server.down = true;
      await until(() => server.refused.length >= 2);
      server.down = false;
      server.streams.sse.breakAfterFrames = Infinity;
      await cli(server, ["produce", "orders", "--partition", "0"], { stdin: "c\n" });
      await until(() => printed() === "a\nb\nc\n");
    });
    expect(run.printed).toBe("a\nb\nc\n");
    expect(run.stderr).toMatch(/^server unreachable \(connection refused at http:\/\/tributary\.test\); retrying in \d+ ms…$/m);
    expect(server.streams.sse.connections.at(-1)!.lastEventId).toBe("2");
  });

  it("follows every partition of the topic without --group or --partition, --json saying each record's partition", async () => {
    const server = await seeded(2);
    await cli(server, ["produce", "orders", "--partition", "1"], { stdin: "x\n" });
    const run = await cli(server, ["consume", "orders", "--follow", "--from-beginning", "--json", "--max", "3"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.toString().trim().split("\n").map((line) => JSON.parse(line) as { partition: number; value: string });
    expect(lines.map((line) => `${line.partition}:${line.value}`).sort()).toEqual(["0:a", "0:b", "1:x"]);
    expect(server.streams.sse.connections[0]).toMatchObject({ path: "/v1/topics/orders/records", offset: "earliest" });
  });

  it("stops after exactly --max records", async () => {
    const server = await seeded();
    const run = await cli(server, ["consume", "orders", "--partition", "0", "--offset", "0", "--follow", "--max", "1"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout.toString()).toBe("a\n");
  });

  it("refuses an offset number for the whole topic, and consume without --group, --partition or --follow", async () => {
    const server = await seeded();
    const numbered = await cli(server, ["consume", "orders", "--follow", "--offset", "3"]);
    expect(numbered.code).toBe(2);
    expect(numbered.stderr).toContain("--offset N is for --partition");
    const neither = await cli(server, ["consume", "orders"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("--follow to follow every partition");
  });
});

describe("tributary topics read-token", () => {
  it("mints a read token (read and describe only), --quiet prints it alone, --ttl is bounded", async () => {
    const server = await seeded();
    server.token = "admin";
    const env = { TRIBUTARY_TOKEN: "admin" };
    const run = await cli(server, ["topics", "read-token", "orders", "--ttl", "5m"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.toString()).toMatch(/^read token for topic orders \(read and describe only; for \?access_token= on a stream\), expires .*:\ntrr_\S+\n$/);
    expect(JSON.parse(new TextDecoder().decode(server.requestsTo(/read-tokens$/, "POST")[0]!.body))).toEqual({ ttlMs: 300_000 });
    const quiet = await cli(server, ["topics", "read-token", "orders", "--quiet"], { env });
    expect(quiet.stdout.toString()).toMatch(/^trr_\S+\n$/);
    const tooLong = await cli(server, ["topics", "read-token", "orders", "--ttl", "2h"], { env });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain("a read token's longest life");
  });
});

describe("tributary consume --group --transport", () => {
  it("websocket (with --follow): the member reads its partitions' WebSocket streams, commits what it printed, and leaves on Ctrl-C", async () => {
    const server = await seeded(2);
    await cli(server, ["produce", "orders", "--partition", "1"], { stdin: "c\n" });
    const argv = ["consume", "orders", "--group", "g", "--from-beginning", "--follow", "--transport", "websocket", "--wait-ms", "50"];
    const run = await follow(
      server,
      argv,
      async (printed) => {
        while (printed().split("\n").length < 4) await sleep(5);
      },
      server.streams.WebSocket,
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.printed.split("\n").filter(Boolean).sort()).toEqual(["a", "b", "c"]);
    expect(server.streams.sockets.length).toBeGreaterThanOrEqual(2); // one per assigned partition
    expect(server.requestsTo(/\/members\/[^/]+\/poll$/)).toHaveLength(0);
    expect(Object.fromEntries(server.groups.get("g")!.committed)).toEqual({ "orders/0": 2, "orders/1": 1 });
  });

  it("poll is the default and takes no WebSocket", async () => {
    const server = await seeded(1);
    const run = await cli(server, ["consume", "orders", "--group", "g", "--from-beginning", "--transport", "poll", "--wait-ms", "10"], { webSocket: server.streams.WebSocket });
    expect({ code: run.code, stdout: run.stdout.toString() }).toEqual({ code: 0, stdout: "a\nb\n" });
    expect(server.streams.sockets).toHaveLength(0);
  });
});
