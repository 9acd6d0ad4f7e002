/**
 * The Java Kafka client 4.4 in classic groups through the gateway (issue 35: Kafka's classic
 * protocol, the leader's bytes handed on as sent):
 *
 * - consumers with static membership (group.instance.id) and the CooperativeStickyAssignor
 *   (its user data carries each member's generation): a restart within the session timeout
 *   gets its partitions back without a rebalance; a second process with a running member's
 *   instance id fences that member, as Kafka 4.4 does (FencedInstanceIdException on the running
 *   one; the newcomer carries on with its partitions); offsets committed with a metadata
 *   string are read back with it (test/java/src/test/java/tributary/programs/StaticMembers.java);
 * - a Kafka Streams application (at_least_once; Streams' "stream" assignor, whose subscription
 *   and assignment user data only the leader's bytes carry — before, the first rebalance died
 *   with TaskAssignmentException: Failed to decode AssignmentInfo) through one rebalance: a
 *   second instance joins, the two share the tasks, every record is uppercased into the output
 *   (test/java/src/test/java/tributary/programs/StreamsUppercase.java).
 * - a Kafka Streams word count with exactly_once_v2 (issue 29; a repartition topic, a state
 *   store and its compacted changelog, every count update out): SIGKILLed with part of a
 *   transaction written, restarted on its state directory, joined by a second instance; read
 *   read_committed, each word's counts are 1, 2, …, N — nothing twice, nothing lost (with
 *   -Dguarantee=at_least_once the same run counts some words twice); the killed transaction's
 *   updates are in the log, aborted; the repartition topic purged by DeleteRecords
 *   (test/java/src/test/java/tributary/programs/WordCountEos.java).
 * - Kafka's command-line tools from kafka-tools 4.4 (pinned in test/java/pom.xml, run by their
 *   main classes): the console producer (keys), kafka-producer-perf-test (acks=all), the console
 *   consumer in a group, kafka-consumer-groups --describe (its committed offsets, no lag), the
 *   console share consumer in a share group, kafka-share-groups --list and --describe (each
 *   share-partition's start at the partition's end).
 *
 * - two consumers with KIP-848's protocol (group.protocol=consumer, group.remote.assignor=range;
 *   one subscribed by name, one by a regex the broker resolves), a classic kafkajs member and an
 *   HTTP member in one group (Kafka 4's mixed groups): the coordinator assigns with range, the
 *   four share the partitions, the Admin client
 *   describes the group with ConsumerGroupDescribe, one Java consumer leaves and the others
 *   take its partitions, every record is processed, and the commits read back over HTTP
 *   (test/java/src/test/java/tributary/programs/ConsumerProtocolGroup.java).
 *
 * - two KafkaShareConsumer members (KIP-932, explicit acknowledgement) and an HTTP share
 *   consumer in one share group with a dead-letter topic: each record is accepted once by one
 *   of them, the rejected ones land in the dead-letter topic (test/java/src/test/java/tributary/programs/ShareConsumers.java);
 * - static members with KIP-848's protocol: one closes (leaving for now) and another process with
 *   its instance id gets its partitions at the same epoch, the other member seeing nothing move
 *   (test/java/src/test/java/tributary/programs/StaticConsumerProtocol.java);
 * - confluent-kafka 2.16 (librdkafka 2.16) with group.protocol=consumer: two members share the
 *   partitions, one leaves, the other gets them all, every record is read, its commits are the
 *   group's offsets (test/python/consumer_protocol_group.py).
 *
 * The expectations are what the same programs print against a real Kafka 4.4
 * (/work/shared/kafka/kafka.sh) with the same topics.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RejectRecord, Tributary } from "../../src/client/index.ts";
import { buildCli } from "./support/cli.ts";
import { startGateway, type GatewayProcess } from "./support/gateway.ts";
import { Ledger, produceNumbered, waitUntil } from "./support/group-ledger.ts";
import { runJava, runJavaMain } from "./support/java-clients.ts";
import { runPython } from "./support/python-clients.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

interface Event {
  event: string;
  consumer?: string;
  phase?: string;
  partitions?: number[];
  generation?: number;
  epoch?: number;
  partition?: number;
  offset?: number;
  metadata?: string;
  error?: string;
}

/** The program's JSON lines, with the phase each event fell in. */
function eventsOf(stdout: string): (Event & { during: string })[] {
  let during = "starting";
  const events: (Event & { during: string })[] = [];
  for (const line of stdout.split("\n").filter((entry) => entry.startsWith("{"))) {
    const event = JSON.parse(line) as Event;
    events.push({ ...event, during });
    if (event.event === "phase") during = `after ${event.phase!}`;
  }
  return events;
}

describe("Kafka clients' groups through the gateway: the Java client (classic and KIP-848), confluent-kafka (KIP-848)", () => {
  let server: DevServer;
  let tributary: Tributary;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    buildCli();
    server = await startWranglerDev();
    tributary = new Tributary({ url: server.url });
    gateway = await startGateway(server.url);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop("SIGKILL");
    await server?.stop();
  });

  it("static members with the cooperative-sticky assignor: a restart keeps its partitions without a rebalance, a duplicate instance fences the running one", async () => {
    const topic = "java-static";
    const group = "java-static";
    await tributary.admin().topics.create({ name: topic, partitions: 4 });
    await produceNumbered(tributary, topic, 4, 50);
    const run = await runJava("StaticMembers", [gateway.address, topic, group], 180_000);
    const events = eventsOf(run.stdout);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(events.filter(({ event }) => event === "error")).toEqual([]);
    const assigned = (consumer: string, during?: string) =>
      events.filter((event) => event.consumer === consumer && event.event === "assigned" && (during === undefined || event.during === during));
    const owned = (consumer: string, during: string) => assigned(consumer, during).flatMap(({ partitions }) => partitions!);

    // a and b share the four partitions.
    const ofA = owned("a", "starting");
    const ofB = owned("b", "starting");
    expect([...ofA, ...ofB].sort()).toEqual([0, 1, 2, 3]);
    const generation = assigned("a", "starting").at(-1)!.generation!;

    // b restarts as b2 under its instance id: the same partitions at the same generation; a sees nothing.
    expect(assigned("b2").map(({ partitions, generation: at }) => [partitions, at])).toEqual([[ofB.sort(), generation]]);
    expect(events.filter((event) => event.consumer === "a" && event.during === "after shared" && event.event !== "records")).toEqual([]);

    // dup starts under a's instance id: a is fenced, dup carries on with a's partitions, still no rebalance.
    expect(events.filter(({ event }) => event === "fenced").map(({ consumer }) => consumer)).toEqual(["a"]);
    expect(assigned("dup").map(({ partitions, generation: at }) => [partitions, at])).toEqual([[ofA.sort(), generation]]);
    expect(events.filter((event) => event.consumer === "b2" && event.during === "after restarted" && event.event !== "records")).toEqual([]);

    // Committed offsets keep their metadata (OffsetCommit → OffsetFetch).
    const committed = events.filter(({ event }) => event === "committed").sort((x, y) => x.partition! - y.partition!);
    expect(committed.map(({ partition, metadata }) => [partition, metadata])).toEqual(ofA.sort().map((partition) => [partition, "checkpoint of dup"]));
    const http = await tributary.admin().groups.offsets(group);
    for (const { partition, offset } of committed) expect(http.find((entry) => entry.partition === partition)).toMatchObject({ offset, metadata: "checkpoint of dup" });
  }, 240_000);

  it("a Kafka Streams application with at_least_once goes through a rebalance: two instances share the tasks, every record reaches the output", async () => {
    await tributary.admin().topics.create({ name: "streams-in", partitions: 4 });
    await tributary.admin().topics.create({ name: "streams-out", partitions: 4 });
    await produceNumbered(tributary, "streams-in", 4, 50);
    const run = await runJava("StreamsUppercase", [gateway.address, "streams-in", "streams-out", "uppercase-app", "200", "100"], 180_000);
    const events = eventsOf(run.stdout);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(events.filter(({ event }) => event === "error")).toEqual([]);
    const tasks = events.filter(({ event }) => event === "tasks") as unknown as { instance: number; tasks: string[] }[];
    expect(tasks.map(({ instance }) => instance)).toEqual([1, 2]);
    expect(tasks.flatMap((entry) => entry.tasks).sort()).toEqual(["0_0", "0_1", "0_2", "0_3"]);
    expect(tasks.every((entry) => entry.tasks.length > 0)).toBe(true);
    expect(events.find(({ event }) => event === "output")).toMatchObject({ distinct: 300, uppercase: true });
    // Streams' members do not leave on close (they expire): the group is still on Kafka's classic path, with Streams' protocol.
    expect((await tributary.admin().groups.describe("uppercase-app")).classic).toMatchObject({ protocolType: "consumer", protocolName: "stream" });
  }, 240_000);
  it("a Kafka Streams word count with exactly_once_v2, killed mid-transaction, restarted, joined by a second instance: read read_committed, each word's counts are 1..N exactly once", async () => {
    const [input, output, application] = ["wordcount-in", "wordcount-out", "wordcount-eos"];
    await tributary.admin().topics.create({ name: input, partitions: 4 });
    await tributary.admin().topics.create({ name: output, partitions: 4 });
    // 400 sentences of 4 words over 29 words: 1,600 count updates.
    const sentences = Array.from({ length: 400 }, (_, n) => ({ key: `k${n}`, value: [0, 1, 2, 3].map((word) => `w${(n * 7 + word * 3) % 29}`).join(" ") }));
    await tributary.topic(input).produce(sentences);
    const stateDirectories = [mkdtempSync(join(tmpdir(), "wordcount-1-")), mkdtempSync(join(tmpdir(), "wordcount-2-"))];
    try {
      // SIGKILLed with 700 updates out in an open transaction (its output, changelog and offsets).
      const crash = await runJava("WordCountEos", ["crash", gateway.address, input, output, application, stateDirectories[0]!, "700"], 120_000, '"kill-me"');
      const crashed = eventsOf(crash.stdout);
      expect(crashed.filter(({ event }) => event === "error")).toEqual([]);
      expect(crashed.at(-1)?.event, `${crash.stdout}\n${crash.stderr.slice(-4000)}`).toBe("kill-me");
      expect(crash.code).toBe(null);

      // Restarted on its state directory (its transactional id kept there: the open transaction is
      // fenced and aborted at once), then a second instance joins: tasks and stores move under EOS.
      const run = await runJava("WordCountEos", ["finish", gateway.address, input, output, application, stateDirectories[0]!, stateDirectories[1]!], 180_000);
      const events = eventsOf(run.stdout);
      expect(run.code, `${run.stdout}\n${run.stderr.slice(-4000)}`).toBe(0);
      expect(events.filter(({ event }) => event === "error")).toEqual([]);
      const tasks = events.filter(({ event }) => event === "tasks") as unknown as { instance: number; tasks: string[] }[];
      expect(tasks.map(({ instance }) => instance)).toEqual([1, 2]);
      expect(tasks.flatMap((entry) => entry.tasks).sort()).toEqual(["0_0", "0_1", "0_2", "0_3", "1_0", "1_1", "1_2", "1_3"]);
      const verified = events.find(({ event }) => event === "verified") as unknown as { words: number; updates: number; uncommitted: number; wrong: string[] };
      expect(verified).toMatchObject({ words: 29, updates: 1600, wrong: [] });
      // The killed transaction's updates are in the log, aborted (read_uncommitted sees them).
      expect(verified.uncommitted).toBeGreaterThan(1600);

      // Streams' internal topics, created through CreateTopics with their configs: the changelog
      // compacted; the repartition topic purged with DeleteRecords below what was committed.
      const store = `${application}-KSTREAM-AGGREGATE-STATE-STORE-0000000003`;
      expect((await tributary.admin().topics.describe(`${store}-changelog`)).configs["cleanup.policy"]).toBe("compact");
      const repartition = await tributary.admin().topics.describe(`${store}-repartition`);
      expect(repartition.partitions.some(({ logStartOffset }) => logStartOffset > 0)).toBe(true);
    } finally {
      for (const directory of stateDirectories) rmSync(directory, { recursive: true, force: true });
    }
  }, 330_000);
  it("Kafka's command-line tools (kafka-tools 4.4): the console producer and consumer, kafka-producer-perf-test, kafka-consumer-groups --describe, kafka-console-share-consumer, kafka-share-groups --list and --describe", async () => {
    const topic = "tools-smoke";
    await tributary.admin().topics.create({ name: topic, partitions: 2 });
    const produced = await runJavaMain("org.apache.kafka.tools.ConsoleProducer", ["--bootstrap-server", gateway.address, "--topic", topic, "--property", "parse.key=true", "--property", "key.separator=:"], 60_000, "a:one\nb:two\nc:three\n");
    expect(produced.code, produced.stderr).toBe(0);
    const perf = await runJavaMain("org.apache.kafka.tools.ProducerPerformance", ["--topic", topic, "--num-records", "1000", "--record-size", "100", "--throughput", "-1", "--producer-props", `bootstrap.servers=${gateway.address}`, "acks=all"]);
    expect(perf.code, perf.stderr).toBe(0);
    expect(perf.stdout).toMatch(/^1000 records sent, /m);

    const consumed = await runJavaMain("org.apache.kafka.tools.consumer.ConsoleConsumer", [
      ...["--bootstrap-server", gateway.address, "--topic", topic, "--group", "tools-smoke", "--from-beginning", "--max-messages", "1003", "--timeout-ms", "30000"],
      ...["--property", "print.key=true", "--property", "key.separator=:"],
    ]);
    expect(consumed.code, consumed.stderr).toBe(0);
    const lines = consumed.stdout.split("\n").filter((line) => /^(null|[abc]):/.test(line));
    expect(lines).toHaveLength(1003);
    expect(lines.filter((line) => !line.startsWith("null:")).sort()).toEqual(["a:one", "b:two", "c:three"]);

    // The offsets the console consumer committed as it closed, as the tool describes them and as HTTP reads them.
    const described = await runJavaMain("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--bootstrap-server", gateway.address, "--describe", "--group", "tools-smoke"]);
    expect(described.code, described.stderr).toBe(0);
    const rows = described.stdout
      .split("\n")
      .filter((line) => line.startsWith("tools-smoke "))
      .map((line) => line.trim().split(/\s+/))
      .map(([, name, partition, current, end, lag]) => ({ name, partition: Number(partition), current: Number(current), end: Number(end), lag: Number(lag) }))
      .sort((x, y) => x.partition - y.partition);
    const ends = (await tributary.admin().topics.describe(topic)).partitions.map(({ partition, highWatermark }) => ({ name: topic, partition, current: highWatermark, end: highWatermark, lag: 0 }));
    expect(rows, described.stdout).toEqual(ends);
    const offsets = await tributary.admin().groups.offsets("tools-smoke");
    expect(offsets.map(({ partition, offset }) => ({ partition, offset })).sort((x, y) => x.partition - y.partition)).toEqual(ends.map(({ partition, end }) => ({ partition, offset: end })));

    // kafka-console-share-consumer takes the records as a share group's member (implicit
    // acknowledgement), then kafka-share-groups lists the group and describes its start offsets.
    const shareGroup = "tools-smoke-share";
    await tributary.admin().shareGroups.alterConfigs(shareGroup, { "auto.offset.reset": "earliest" });
    const shared = await runJavaMain("org.apache.kafka.tools.consumer.ConsoleShareConsumer", [
      ...["--bootstrap-server", gateway.address, "--topic", topic, "--group", shareGroup, "--max-messages", "1003", "--timeout-ms", "30000"],
      ...["--formatter-property", "print.key=true", "--formatter-property", "key.separator=:"],
    ]);
    expect(shared.code, shared.stderr).toBe(0);
    const sharedLines = shared.stdout.split("\n").filter((line) => /^(null|[abc]):/.test(line));
    expect(sharedLines).toHaveLength(1003);
    expect(sharedLines.filter((line) => !line.startsWith("null:")).sort()).toEqual(["a:one", "b:two", "c:three"]);
    const listed = await runJavaMain("org.apache.kafka.tools.consumer.group.ShareGroupCommand", ["--bootstrap-server", gateway.address, "--list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split("\n").map((line) => line.trim())).toContain(shareGroup);
    const shareDescribed = await runJavaMain("org.apache.kafka.tools.consumer.group.ShareGroupCommand", ["--bootstrap-server", gateway.address, "--describe", "--group", shareGroup]);
    expect(shareDescribed.code, shareDescribed.stderr).toBe(0);
    const shareRows = shareDescribed.stdout
      .split("\n")
      .filter((line) => line.startsWith(`${shareGroup} `))
      .map((line) => line.trim().split(/\s+/))
      .map(([, name, partition, start, lag]) => ({ name, partition: Number(partition), start: Number(start), lag: Number(lag) }))
      .sort((x, y) => x.partition - y.partition);
    // Every record acknowledged: each share-partition starts at the end of its partition.
    expect(shareRows, shareDescribed.stdout).toEqual(ends.map(({ partition, end }) => ({ name: topic, partition, start: end, lag: 0 })));
  }, 180_000);
  it("KIP-848 consumers (by name and by regex, the range assignor), a classic kafkajs member and an HTTP member share a group: a member leaves, its partitions move, every record is processed, commits read back", async () => {
    const topic = "kip848-orders";
    const groupId = "kip848";
    await tributary.admin().topics.create({ name: topic, partitions: 6 });
    await produceNumbered(tributary, topic, 6, 100);
    const ledger = new Ledger();
    const http = tributary.consumer({ groupId, sessionTimeoutMs: 10_000, clientId: "http", maxRecords: 20 });
    let stopKafkajs = async () => {};
    try {
      await http.subscribe({ topics: [topic], fromBeginning: true });
      void http.run({
        eachMessage: async ({ partition, message }) => {
          ledger.record("http", partition, message.offset);
          await new Promise((resolve) => setTimeout(resolve, 20));
        },
      });
      await waitUntil(() => ledger.distinct > 0, 30_000, "the HTTP member reads");
      // A classic member (JoinGroup/SyncGroup) in the same group, bridged onto the server's assignment.
      const kafkajs = new Kafka({ brokers: [gateway.address], clientId: "kafkajs", logLevel: logLevel.NOTHING }).consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 300 });
      stopKafkajs = () => kafkajs.disconnect();
      await kafkajs.connect();
      await kafkajs.subscribe({ topics: [topic], fromBeginning: true });
      await kafkajs.run({
        eachMessage: async ({ partition, message }) => {
          ledger.record("kafkajs", partition, message.offset);
          await new Promise((resolve) => setTimeout(resolve, 20));
        },
      });
      await waitUntil(async () => (await tributary.admin().groups.describe(groupId)).members.length === 2, 30_000, "kafkajs joined");
      const run = await runJava("ConsumerProtocolGroup", [gateway.address, topic, groupId, "kip848-.*"], 180_000);
      const events = eventsOf(run.stdout);
      const said = run.stdout.split("\n").filter((line) => !line.includes('"record"')).join("\n");
      expect(run.code, `${said.slice(-4000)}\n${run.stderr.slice(-4000)}`).toBe(0);
      expect(events.filter(({ event }) => event === "error")).toEqual([]);
      for (const { consumer, partition, offset } of events.filter(({ event }) => event === "record")) ledger.record(consumer!, partition!, offset!);

      // The Admin client's ConsumerGroupDescribe: a consumer group of four, assigned by range (most members' group.remote.assignor).
      expect(events.find(({ event }) => event === "described")).toMatchObject({ type: "Consumer", assignor: "range", members: 4 });
      // Without b: three members, the group stable again.
      expect(events.filter(({ event }) => event === "described").at(-1)).toMatchObject({ state: "Stable", members: 3 });
      // a and b shared partitions with the HTTP member, none in two places at once.
      const ownedWhenShared = (consumer: string) => {
        const held = new Set<number>();
        for (const event of events.filter((entry) => entry.consumer === consumer && entry.during === "starting")) {
          if (event.event === "assigned") for (const partition of event.partitions!) held.add(partition);
          if (event.event === "revoked" || event.event === "lost") for (const partition of event.partitions!) held.delete(partition);
        }
        return [...held].sort();
      };
      const ofA = ownedWhenShared("a");
      const ofB = ownedWhenShared("b");
      // What b let go as it left (its close revokes everything it held).
      const leftByB = events
        .filter(({ consumer, event, during }) => consumer === "b" && (event === "revoked" || event === "lost") && during === "after shared")
        .flatMap(({ partitions }) => partitions!);
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofB.length).toBeGreaterThan(0);
      expect(ofA.filter((partition) => ofB.includes(partition))).toEqual([]);
      expect(ofA.length + ofB.length).toBeLessThan(6);
      // a's epochs only move forward.
      const epochs = events.filter(({ consumer, event }) => consumer === "a" && event === "assigned").map(({ epoch }) => epoch!);
      expect(epochs).toEqual([...epochs].sort((x, y) => x - y));

      // Every record processed (the HTTP member takes the rest once the Java members are gone).
      await ledger.waitFor(600, 60_000, "every record");
      expect(ledger.consumers()).toEqual(new Set(["a", "b", "http", "kafkajs"]));
      // b's partitions went on after it left, from the record after the last it read (it committed as it went), by another member.
      const records = events.filter(({ event }) => event === "record");
      expect(leftByB.length).toBeGreaterThan(0);
      for (const partition of leftByB) {
        const last = Math.max(...records.filter((event) => event.consumer === "b" && event.partition === partition).map(({ offset }) => offset!));
        if (last < 99) expect(ledger.processedBy(partition, last + 1).filter((consumer) => consumer !== "b"), `${partition}:${last + 1}`).not.toEqual([]);
      }
      // a's last commits, read back with the Java client, are the group's offsets over HTTP.
      const committed = events.filter(({ event }) => event === "committed");
      expect(committed.length).toBeGreaterThan(0);
      const offsets = await tributary.admin().groups.offsets(groupId);
      for (const { partition, offset } of committed) expect(offsets.find((entry) => entry.partition === partition)?.offset).toBeGreaterThanOrEqual(offset!);
    } finally {
      await stopKafkajs();
      await http.disconnect();
    }
  }, 240_000);
  it("KafkaShareConsumer members (explicit acknowledgement) and an HTTP share consumer share a share group: each record accepted once, rejected ones dead-lettered", async () => {
    const topic = "java-share";
    const group = "java-share";
    const deadLetters = "java-share-dlq";
    await tributary.admin().topics.create({ name: topic, partitions: 3 });
    await tributary.admin().topics.create({ name: deadLetters, partitions: 1 });
    await tributary.admin().shareGroups.alterConfigs(group, { "auto.offset.reset": "earliest", "dead.letter.topic": deadLetters });
    await produceNumbered(tributary, topic, 3, 40);
    const stopFile = join(mkdtempSync(join(tmpdir(), "tributary-java-share-")), "stop");
    const java = runJava("ShareConsumers", [gateway.address, topic, group, stopFile], 90_000);
    const progress = async () => (await tributary.admin().shareGroups.describe(group)).partitions.reduce((sum, entry) => sum + entry.startOffset + entry.done, 0);
    const http: { type: string; value: string }[] = [];
    const consumer = tributary.shareConsumer({ group, topics: [topic], maxWaitTimeInMs: 200 });
    let running: Promise<void> | undefined;
    try {
      // The Java members take records first (the JVM starts slower than the HTTP consumer), then all three share the rest.
      await waitUntil(async () => (await progress()) > 0, 30_000, "the Java members' first acknowledgements");
      running = consumer.run({
        eachMessage: ({ message }) => {
          const value = new TextDecoder().decode(message.value!);
          http.push({ type: value.endsWith("7") ? "REJECT" : "ACCEPT", value });
          if (value.endsWith("7")) throw new RejectRecord("ends in 7");
        },
      });
      await produceNumbered(tributary, topic, 3, 40, 40);
      // Every record done (accepted or archived): each share-partition's start at its high watermark.
      await waitUntil(async () => (await tributary.admin().shareGroups.describe(group)).partitions.filter((entry) => entry.startOffset === 80).length === 3, 60_000, "every record of the share group done");
    } finally {
      await consumer.stop();
      await running;
      writeFileSync(stopFile, "");
    }
    const run = await java;
    const events = eventsOf(run.stdout) as unknown as { event: string; consumer: string; type: string; value: string; deliveryCount: number }[];
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(events.filter(({ event }) => event === "error")).toEqual([]);
    const javaAcks = events.filter(({ event }) => event === "ack");
    expect(javaAcks.length, "the Java members consumed").toBeGreaterThan(0);
    expect(http.length, "the HTTP consumer consumed").toBeGreaterThan(0);
    const all = [...javaAcks, ...http];
    const accepted = all.filter(({ type }) => type === "ACCEPT").map(({ value }) => value).sort();
    const everyValue = [0, 1, 2].flatMap((partition) => Array.from({ length: 80 }, (_, n) => `p${partition}-${n}`));
    // Each record accepted exactly once (nothing was released, so nothing came twice), whichever protocol took it.
    expect(accepted).toEqual(everyValue.filter((value) => !value.endsWith("7")).sort());
    const rejected = everyValue.filter((value) => value.endsWith("7")).sort();
    expect(all.filter(({ type }) => type === "REJECT").map(({ value }) => value).sort()).toEqual(rejected);
    const dead = await tributary.topic(deadLetters).fetch(0, 0, { maxRecords: 100 });
    expect(dead.records.map(({ value }) => new TextDecoder().decode(value!)).sort()).toEqual(rejected);
  }, 120_000);

  it("KIP-848 static members: a restart under the instance id gets the member's partitions at its epoch; the other member sees nothing move", async () => {
    const topic = "kip848-static";
    await tributary.admin().topics.create({ name: topic, partitions: 4 });
    const run = await runJava("StaticConsumerProtocol", [gateway.address, topic, "kip848-static"], 150_000);
    const events = eventsOf(run.stdout);
    expect(run.code, `${run.stdout}\n${run.stderr.slice(-4000)}`).toBe(0);
    expect(events.filter(({ event }) => event === "error")).toEqual([]);
    const held = (consumer: string) => {
      const partitions = new Set<number>();
      for (const event of events.filter((entry) => entry.consumer === consumer && entry.during === "starting")) {
        for (const partition of event.partitions!) (event.event === "assigned" ? partitions.add(partition) : partitions.delete(partition));
      }
      return [...partitions].sort();
    };
    const ofB = held("b");
    // b's epoch when it closed: that of the last assignment change it saw.
    const epochOfB = events.filter(({ consumer, during }) => consumer === "b" && during === "starting").at(-1)!.epoch!;
    expect(ofB.length).toBeGreaterThan(0);
    expect(events.filter(({ consumer }) => consumer === "b2").map(({ event, partitions, epoch }) => [event, partitions, epoch]).slice(0, 1)).toEqual([["assigned", ofB, epochOfB]]);
    expect(events.filter(({ consumer, during }) => consumer === "a" && during === "after shared")).toEqual([]);
  }, 180_000);

  it("confluent-kafka with group.protocol=consumer: two members share the partitions, one leaves, the other takes them all; every record read, commits are the group's offsets", async () => {
    const topic = "kip848-python";
    const groupId = "kip848-python";
    await tributary.admin().topics.create({ name: topic, partitions: 4 });
    await produceNumbered(tributary, topic, 4, 25);
    const run = await runPython("consumer_protocol_group.py", [gateway.address, topic, groupId, "4"], 150_000);
    const events = eventsOf(run.stdout);
    const said = run.stdout.split("\n").filter((line) => !line.includes('"record"')).join("\n");
    expect(run.code, `${said.slice(-4000)}\n${run.stderr.slice(-4000)}`).toBe(0);
    expect(events.filter(({ event }) => event === "error")).toEqual([]);
    const ledger = new Ledger();
    for (const { consumer, partition, offset } of events.filter(({ event }) => event === "record")) ledger.record(consumer!, partition!, offset!);
    expect(ledger.distinct).toBe(100);
    expect(ledger.consumers()).toEqual(new Set(["a", "b"]));
    // b's partitions went to a once b left.
    const heldByB = new Set<number>();
    for (const event of events.filter(({ consumer, event, during }) => consumer === "b" && (event === "assigned" || event === "revoked") && during === "starting")) {
      for (const partition of event.partitions!) (event.event === "assigned" ? heldByB.add(partition) : heldByB.delete(partition));
    }
    const ofB = [...heldByB];
    expect(ofB.length).toBeGreaterThan(0);
    const gotByA = events.filter(({ consumer, event, during }) => consumer === "a" && event === "assigned" && during === "after left").flatMap(({ partitions }) => partitions!);
    expect(gotByA.sort()).toEqual(ofB.sort());
    const committed = events.filter(({ event }) => event === "committed").sort((x, y) => x.partition! - y.partition!);
    expect(committed.map(({ partition, offset }) => [partition, offset])).toEqual([0, 1, 2, 3].map((partition) => [partition, 25]));
    const offsets = await tributary.admin().groups.offsets(groupId);
    expect(offsets.map(({ partition, offset }) => [partition, offset]).sort()).toEqual([0, 1, 2, 3].map((partition) => [partition, 25]));
  }, 180_000);
});