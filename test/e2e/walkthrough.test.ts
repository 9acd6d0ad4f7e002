/**
 * The README's curl walkthrough against a fresh `wrangler dev`: each documented command line
 * runs as curl itself (execFile, no shell in between), in the documented order, and every
 * answer is checked against API.md.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandLine, renderWalkthrough, walkthroughSteps, type WalkthroughStepName } from "./support/walkthrough-steps.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const execFileAsync = promisify(execFile);

/** wrangler.toml `vars.REGIONS`: every leader and replica is one of them. */
const regions = ["wnam", "enam", "weur", "apac", "oc"];
const curlTimeoutMs = 30_000;

/**
 * The words a POSIX shell makes of a command line that uses only plain words, single quotes
 * and `\` + newline continuations. Anything else is refused, so a documented line cannot mean
 * one thing here and another in bash or zsh (an unquoted `?` or `&`, say).
 */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === "\\" && line[index + 1] === "\n") {
      index++; // a continuation: the shell removes backslash and newline
    } else if (char === " " || char === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'") {
      const end = line.indexOf("'", index + 1);
      if (end < 0) throw new Error(`unterminated single quote at ${index} in: ${line}`);
      word = (word ?? "") + line.slice(index + 1, end);
      index = end;
    } else if (/[A-Za-z0-9_\-./:=@%+,]/.test(char)) {
      word = (word ?? "") + char;
    } else {
      throw new Error(`unquoted ${JSON.stringify(char)} at ${index} in: ${line}`);
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

interface CurlAnswer {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

/** Runs a command line that starts with `curl`; adds only `--write-out` for status and content type. */
async function curl(line: string): Promise<CurlAnswer> {
  const [program, ...args] = shellWords(line);
  expect(program, line).toBe("curl");
  const { stdout } = await execFileAsync("curl", [...args, "--write-out", "\n%{http_code} %{content_type}"], {
    timeout: curlTimeoutMs,
  });
  const split = stdout.lastIndexOf("\n");
  const text = stdout.slice(0, split);
  const [status, contentType = ""] = stdout.slice(split + 1).split(" ");
  return { status: Number(status), contentType, text, body: text === "" ? undefined : JSON.parse(text) };
}

/** API.md's configs with Kafka's defaults ("Semantics follow Apache Kafka wherever this page is silent"). */
const defaultConfigs = {
  "retention.ms": "604800000",
  "retention.bytes": "-1",
  "cleanup.policy": "delete",
  "delete.retention.ms": "86400000",
  "segment.bytes": expect.stringMatching(/^\d+$/), // Kafka's 1 GiB is above API.md's bound
  "segment.ms": "604800000",
  "max.message.bytes": "1048576",
  "min.insync.replicas": "1",
  "replica.lag.time.max.ms": "30000",
  "unclean.leader.election.enable": "false",
  "message.timestamp.type": "CreateTime",
  "message.timestamp.before.max.ms": "9223372036854775807",
  "message.timestamp.after.max.ms": "9223372036854775807",
  "compression.type": "producer",
  "confluent.key.schema.validation": "false",
  "confluent.value.schema.validation": "false",
  "confluent.key.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
  "confluent.value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
  "tributary.key.schema.validation": "false",
  "tributary.value.schema.validation": "false",
};

/** A Topic's partitions with replication factor 1: the one replica leads and is the ISR. */
function expectPlacement(topic: any): string[] {
  return topic.partitions.map((partition: any) => {
    expect(regions, JSON.stringify(partition)).toContain(partition.leader);
    expect(partition.replicas).toEqual([partition.leader]);
    expect(partition.isr).toEqual([partition.leader]);
    return partition.leader as string;
  });
}

/** `{"offset", "timestamp"?}` (API.md): the offset exact, a timestamp only as an integer. */
function expectListedOffset(answer: CurlAnswer, offset: number): void {
  expect(answer.status, answer.text).toBe(200);
  const { timestamp, ...rest } = answer.body;
  expect(rest).toEqual({ offset });
  expect(timestamp === undefined || Number.isSafeInteger(timestamp), answer.text).toBe(true);
}

describe("the README's curl walkthrough", () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startWranglerDev();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is the walkthrough the README shows, word for word", () => {
    expect(readFileSync("README.md", "utf8")).toContain(renderWalkthrough());
  });

  it("uses only words that bash, zsh and sh read the same way, and only curl", () => {
    for (const step of walkthroughSteps) {
      expect(shellWords(commandLine(step, "http://127.0.0.1:8787"))[0], step.name).toBe("curl");
    }
  });

  it("answers every documented command as API.md says", async () => {
    let next = 0;
    /** Runs the named step, which must be the next one documented: the test follows the README's order. */
    const run = async (name: WalkthroughStepName): Promise<CurlAnswer> => {
      const step = walkthroughSteps[next]!;
      expect(step.name, "the walkthrough's order").toBe(name);
      next++;
      const answer = await curl(commandLine(step, server.url));
      if (answer.text !== "") expect(answer.contentType, `${name}: ${answer.text}`).toMatch(/^application\/json/);
      return answer;
    };

    const created = await run("create the topic");
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      name: "orders",
      topicId: expect.any(String),
      replicationFactor: 1,
      configs: defaultConfigs,
      configOverrides: [],
      partitions: [0, 1, 2].map((partition) => ({
        partition,
        leader: expect.any(String),
        replicas: expect.any(Array),
        isr: expect.any(Array),
        logStartOffset: 0,
        highWatermark: 0,
        // Additions to API.md's Topic (docs/api.md): the last stable offset (docs/transactions.md), the leader epoch and where the bytes live.
        lastStableOffset: 0,
        leaderEpoch: 0,
        storage: { sqliteBatches: 0, sqliteBytes: 0, r2Segments: 0, r2Bytes: 0 },
      })),
    });
    expect(created.body.topicId).not.toBe("");
    const segmentBytes = Number(created.body.configs["segment.bytes"]);
    expect(segmentBytes).toBeGreaterThanOrEqual(65_536);
    expect(segmentBytes).toBeLessThanOrEqual(67_108_864);
    const leaders = expectPlacement(created.body);

    const beforeProduce = Date.now();
    const produced = await run("produce three records");
    const afterProduce = Date.now();
    expect(produced.status, produced.text).toBe(200);
    expect(produced.body).toEqual({
      offsets: [
        { partition: 2, offset: 0, timestamp: expect.any(Number) },
        { partition: 2, offset: 1, timestamp: expect.any(Number) },
        { partition: 0, offset: 0, timestamp: expect.any(Number) },
      ],
    });
    const timestamps: number[] = produced.body.offsets.map((entry: { timestamp: number }) => entry.timestamp);
    for (const timestamp of timestamps) {
      expect(Number.isSafeInteger(timestamp)).toBe(true);
      expect(timestamp).toBeGreaterThanOrEqual(beforeProduce);
      expect(timestamp).toBeLessThanOrEqual(afterProduce);
    }

    const fetched = await run("fetch partition 2");
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.body).toEqual({
      records: [
        { offset: 0, timestamp: timestamps[0], key: "user-1", value: "hello", headers: { trace: "abc" } },
        { offset: 1, timestamp: timestamps[1], key: "user-1", value: "world", headers: {} },
      ],
      nextOffset: 2,
      highWatermark: 2,
      lastStableOffset: 2,
      logStartOffset: 0,
    });

    expectListedOffset(await run("earliest offset"), 0);
    expectListedOffset(await run("latest offset"), 2);

    const described = await run("describe the topic");
    expect(described.status, described.text).toBe(200);
    expect(described.body).toEqual({
      ...created.body,
      partitions: created.body.partitions.map((partition: any, index: number) => ({
        ...partition,
        highWatermark: [1, 0, 2][index],
        lastStableOffset: [1, 0, 2][index],
        storage: { ...partition.storage, sqliteBatches: [1, 0, 1][index], sqliteBytes: expect.any(Number) },
      })),
    });
    expect(expectPlacement(described.body)).toEqual(leaders);

    const listed = await run("list topics");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({ topics: [{ name: "orders", partitions: 3, replicationFactor: 1 }] });

    const deleted = await run("delete the topic");
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: "" });

    const gone = await run("describe the deleted topic");
    expect(gone.status, gone.text).toBe(404);
    expect(gone.body).toEqual({ error: { code: "UNKNOWN_TOPIC_OR_PARTITION", message: expect.any(String) } });
    expect(gone.body.error.message).not.toBe("");

    expect(next, "every documented step ran").toBe(walkthroughSteps.length);
  });
});
