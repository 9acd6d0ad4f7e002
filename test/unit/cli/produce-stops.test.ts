/**
 * `tributary produce` stopped early (a line that cannot be a record, a refused request,
 * Ctrl-C): every line before the stop is produced and acknowledged, and the run says how many
 * records were acknowledged and from which line to resume.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, FakeServer } from "./support.ts";

const total = (server: FakeServer, topic: string) => server.topics.get(topic)!.logs.reduce((sum, _, p) => sum + server.records(topic, p).length, 0);
const lines = (from: number, count: number) => Array.from({ length: count }, (_, i) => `k${from + i}=v${from + i}\n`).join("");

describe("tributary produce stopped by its input", () => {
  it("produces every line before one without the key separator, in the same chunk too, and says where to resume", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    // Three chunks; the bad line is in the middle of the last, after 2,500 good lines.
    const stdin = [Buffer.from(lines(0, 1000)), Buffer.from(lines(1000, 1000)), Buffer.from(lines(2000, 500) + "no separator here\n" + lines(2500, 10))];
    const run = await cli(server, ["produce", "orders", "--key-separator", "="], { stdin });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      '2,500 records were acknowledged before the failure: lines 1 to 2500; resume from line 2501\nerror: line 2501 has no key separator "="\n',
    );
    expect(total(server, "orders")).toBe(2500);
  });

  it("stops at a line larger than the topic's max.message.bytes, with its number and the bound, after producing the lines before it", async () => {
    const server = new FakeServer();
    server.createTopic("small", 2, { "max.message.bytes": "100" });
    const run = await cli(server, ["produce", "small"], { stdin: `a\nb\n${"x".repeat(101)}\nc\n` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "2 records were acknowledged before the failure: lines 1 to 2; resume from line 3\n" +
        "error: line 3 is a record of 101 bytes, more than the topic's max.message.bytes (100)\n",
    );
    expect(total(server, "small")).toBe(2);
    // Key and value count, not the separator: 50 + 50 bytes fit.
    expect((await cli(server, ["produce", "small", "--key-separator", "="], { stdin: `${"k".repeat(50)}=${"v".repeat(50)}\n` })).code).toBe(0);
  });

  it("stops at a line too long to read (past any max.message.bytes) after producing the lines before it", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 1);
    const long = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const run = await cli(server, ["produce", "orders", "--partition", "0"], { stdin: [Buffer.from("one\ntwo\n"), Buffer.concat([Buffer.from("three\n"), long])] });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "3 records were acknowledged before the failure: lines 1 to 3; resume from line 4\n" +
        "error: line 4 is longer than 2 MiB, more than max.message.bytes allows (at most 1,048,576 bytes)\n",
    );
    expect(total(server, "orders")).toBe(3);
  });

  it("says a file it cannot read is that, once, before any request (no resume line, no raw ENOENT)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tributary-produce-"));
    try {
      const server = new FakeServer();
      server.createTopic("orders", 1);
      const cases: [file: string, why: string][] = [
        [join(directory, "missing.txt"), "no such file"],
        [directory, "it is a directory"],
      ];
      for (const [file, why] of cases) {
        const run = await cli(server, ["produce", "orders", "--file", file]);
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: `error: cannot read --file ${file}: ${why}\n` });
      }
      expect(server.requests).toHaveLength(0);
      const readable = join(directory, "input.txt");
      writeFileSync(readable, "one\ntwo\n");
      expect((await cli(server, ["produce", "orders", "--file", readable])).code).toBe(0);
      expect(total(server, "orders")).toBe(2);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("tributary produce stopped by the server", () => {
  it("stops reading at a refused request and resumes from its first line", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 2);
    // The second chunk's request is refused: the third is never read, let alone sent.
    let produceRequests = 0;
    server.failNext((request) => request.method === "POST" && request.path.endsWith("/records") && ++produceRequests === 2, {
      kind: "error",
      status: 400,
      body: { error: { code: "INVALID_RECORD", message: "refused by the test" } },
    });
    async function* chunks() {
      for (let chunk = 0; chunk < 3; chunk++) {
        yield Buffer.from(`line ${chunk}\n`);
        await new Promise((resolve) => setTimeout(resolve, 20)); // each chunk its own request
      }
    }
    const run = await cli(server, ["produce", "orders", "--partition", "1", "--linger-ms", "0"], { stdin: chunks() });
    expect(run).toMatchObject({ code: 1, stderr: "1 record was acknowledged before the failure: line 1; resume from line 2\nerror: INVALID_RECORD: refused by the test\n" });
    expect(server.records("orders", 1).map((record) => Buffer.from(record.value!).toString())).toEqual(["line 0"]);
    expect(server.requestsTo(/records$/, "POST")).toHaveLength(2);
  });

  it("with --json, prints the summary with where it stopped on stdout and the error on stderr", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 1);
    const run = await cli(server, ["produce", "orders", "--key-separator", ":", "--json"], { stdin: "a:1\nb:2\nbad\n" });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ topic: "orders", records: 2, stopped: "failure", resumeFromLine: 3 });
    expect(JSON.parse(run.stderr)).toEqual({ error: { message: 'line 3 has no key separator ":"' } });
  });
});

describe("tributary produce stopped by Ctrl-C", () => {
  it("stops reading, produces what it read, prints what was acknowledged and exits 130", async () => {
    const server = new FakeServer();
    server.createTopic("orders", 3);
    let interrupt: (() => void) | undefined;
    async function* endless() {
      for (let chunk = 0; ; chunk++) {
        yield Buffer.from(lines(chunk * 100, 100));
        if (chunk === 4) interrupt!(); // Ctrl-C after five chunks, while more input would come
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const run = await cli(server, ["produce", "orders", "--key-separator", "="], { stdin: endless(), onInterrupt: (handler) => (interrupt = handler) });
    expect(run.code).toBe(130);
    const acknowledged = total(server, "orders");
    // What was read before Ctrl-C (whole chunks; the stream reads ahead of the CLI), all of it produced.
    expect(acknowledged).toBeGreaterThan(0);
    expect(acknowledged % 100).toBe(0);
    expect(run.stderr).toBe(
      `${acknowledged.toLocaleString("en-US")} records were acknowledged before the interruption: lines 1 to ${acknowledged}; resume from line ${acknowledged + 1}\n`,
    );
  });
});
