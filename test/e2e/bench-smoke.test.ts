/**
 * A small run of the benchmark's own code (bench/) against one `wrangler dev`, so it cannot
 * rot (and its startup rows, which start Tributary without wrangler): each transport's produce, consume and latency loops, the cost counters, a run of the bill, issue 27's compressed topics, issue 28's transactions and issue 30's schema validation rows, the soak's
 * sampling and verdict, and the report's tables. Figures are not asserted — speed is
 * measured by `npm run bench`, never by a test — only that each part answers sensibly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTopic, type Endpoint } from "../../bench/client.ts";
import { costBetween, costTable, leaderCounters } from "../../bench/cost.ts";
import { measureConsume, measureProduce, measureProduceLatency } from "../../bench/measure.ts";
import { figureOf, measureWithCpu } from "../../bench/measured-run.ts";
import { makeRecords } from "../../bench/payloads.ts";
import { clientHeading, printedTable, resultsMarkdown, sealedReadsHeading, sectionOf, soakHeading } from "../../bench/report.ts";
import { clientMarkdown, measureClientRows } from "../../bench/client-rows.ts";
import { scenarioTable, type RowResult } from "../../bench/scenarios.ts";
import { measureSealedReads, sealedReadsMarkdown } from "../../bench/sealed-reads.ts";
import { runSoak, soakMarkdown } from "../../bench/soak.ts";
import { FanOut, measureFanOut, measureStreamLatency, measureTailRead } from "../../bench/streams.ts";
import { measureStartup, startupMarkdown, startupRows } from "../../bench/startup.ts";
import { transports, type ServerName, type TransportName } from "../../bench/transports.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";
import { durableStreamsMarkdown, measureDurableStreams } from "../../bench/durable-streams.ts";
import { runBillCase } from "../../bench/bill-run.ts";
import { measureCompressedTopics } from "../../bench/compression-server.ts";
import { measureTransactionRows, transactionsMarkdown } from "../../bench/transactions.ts";
import { measureSchemaValidation, schemaValidationMarkdown } from "../../bench/schema-validation.ts";

describe("the benchmark's code against wrangler dev", () => {
  let server: DevServer;
  const abort = new AbortController();
  const endpoint = (transport: TransportName): Endpoint => ({
    server: "tributary",
    url: server.url,
    transport: transports[transport],
    signal: abort.signal,
    processGroupId: server.processGroupId,
  });

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_FAULTS: "1", TRIBUTARY_DEBUG_STATS: "1" } });
  });

  afterAll(async () => {
    abort.abort();
    await server?.stop();
  });

  it.each(["json", "binary"] as const)("measures %s produce, consume and latency, with their cost, and reports them", async (transport) => {
    const target = endpoint(transport);
    const topic = `smoke-${transport}`;
    expect(await createTopic(target, topic, 1, 1)).toBeUndefined();
    const body = target.transport.produceBody(makeRecords(100), 1);
    const before = (await leaderCounters(target, topic))!;
    const produced = await measureWithCpu({ tributary: target, baseline: target } as Record<ServerName, Endpoint>, "tributary", () =>
      measureProduce(target, topic, body, 1, 2, 0.3),
    );
    const after = (await leaderCounters(target, topic))!;
    expect(produced.run).toMatchObject({ records: expect.any(Number) });
    // The runtime's CPU and its user part (bench/cpu.ts: the kernel's part swings between runs).
    expect(produced.cpu!.runtimeUserMs).toBeGreaterThan(0);
    expect(produced.cpu!.runtimeUserMs).toBeLessThanOrEqual(produced.cpu!.runtimeMs);
    const records = "records" in produced.run ? produced.run.records : 0;
    expect(records).toBeGreaterThan(0);
    const cost = costBetween(before, after, records, "1,000 records")!;
    // At least one object request and one row (the batch) per request of 100 records.
    expect(cost.objectRequests).toBeGreaterThanOrEqual(10);
    expect(cost.sqliteRowsWritten).toBeGreaterThanOrEqual(10);
    const consumed = await measureConsume(target, topic, 0.2);
    expect(consumed.records).toBeGreaterThan(0);
    const latency = await measureProduceLatency(target, topic, target.transport.produceBody(makeRecords(1), 1), 0.2);
    expect(latency.p99Ms).toBeGreaterThan(0);

    const scenario = scenarioTable().find((row) => row.id === `${transport}.produce.1-in-flight`)!;
    const row: RowResult = { scenario, tributary: figureOf([produced]), cost };
    const lookup = () => undefined;
    expect(printedTable([row], lookup)).toContain(scenario.label);
    expect(costTable([row])).toContain(scenario.label);
    const markdown = resultsMarkdown({ date: "d", machine: "m", versions: "v", commit: "c" }, { mode: "quick", lines: [], durationSeconds: 1 }, [row], lookup);
    expect(markdown).toContain("## What it costs");
  });

  it("measures the streaming rows: SSE and WebSocket latency, a long-polling tail reader, fan-out to WebSocket subscribers and its cost", async () => {
    const target = endpoint("binary");
    const records = makeRecords(100);
    const bodyFor = (sequence: number) => target.transport.produceBody([{ key: `s${String(sequence).padStart(15, "0")}`, value: records[0]!.value }], 1);
    for (const transport of ["sse", "websocket"] as const) {
      const topic = `smoke-stream-${transport}`;
      expect(await createTopic(target, topic, 1, 1)).toBeUndefined();
      const latency = await measureStreamLatency(target, topic, bodyFor, "s", { nextOffset: 0, nextSequence: 0 }, 0.3, transport);
      expect(latency.samples).toBeGreaterThan(0);
      expect(latency.p99Ms).toBeGreaterThan(0);
    }
    const body = target.transport.produceBody(records, 1);
    expect(await createTopic(target, "smoke-tail", 1, 1)).toBeUndefined();
    const tail = await measureTailRead(target, "smoke-tail", body, { logEnd: 0, readerOffset: 0 }, 0.3);
    expect(tail.records).toBe(tail.requests * 100);

    expect(await createTopic(target, "smoke-fan-out", 1, 1)).toBeUndefined();
    const fan = await FanOut.open(target, "smoke-fan-out", 0, 3);
    try {
      const before = (await leaderCounters(target, "smoke-fan-out"))!;
      const delivered = await measureFanOut(target, "smoke-fan-out", body, fan, { logEnd: 0, readerOffset: 0 }, 0.3);
      const after = (await leaderCounters(target, "smoke-fan-out"))!;
      // Every subscriber got every record produced.
      expect(delivered.records).toBe(delivered.requests * 100 * 3);
      const cost = costBetween(before, after, delivered.records, "1,000 records", delivered.requests)!;
      expect(cost.objectRequests).toBeGreaterThanOrEqual(0);
      const scenario = scenarioTable().find((row) => row.id === "binary.fan-out.websocket")!;
      const row: RowResult = { scenario, tributary: figureOf([{ run: delivered }]), cost };
      expect(printedTable([row], () => undefined)).toContain(scenario.label);
    } finally {
      fan.close();
    }
  });

  // The Durable Streams rows (bench/durable-streams.ts): the protocol at /ds against the JSON API.
  it("measures the Durable Streams rows and reports them as ratios", async () => {
    const figures = await measureDurableStreams(server.url, { seconds: 0.2, runs: 1, catchUpRecords: 500 }, () => undefined);
    expect(figures.map((figure) => figure.unit)).toEqual(["req/s", "req/s", "MB/s"]);
    for (const figure of figures) expect(figure.protocol > 0 && figure.jsonApi > 0).toBe(true);
    expect(durableStreamsMarkdown(figures, 0.2, 1)).toMatch(/^## Durable Streams\n[\s\S]*\| appends, 1 in flight .*× \|/);
  });

  it("measures the client against the raw binary path (issue 19) and reports both", async () => {
    const figures = await measureClientRows(server.url, server.processGroupId, 1, () => {}, { records: 3_000, latencySamples: 5 });
    for (const side of [figures.raw, figures.own]) {
      expect(side.produce[0]!.recordsPerSecond).toBeGreaterThan(0);
      expect(side.consume[0]!.clientCpuMs).toBeGreaterThan(0);
      expect(side.latency[0]!.p99Ms).toBeGreaterThanOrEqual(side.latency[0]!.p50Ms);
    }
    expect(figures.groupConsume[0]!.recordsPerSecond).toBeGreaterThan(0); // consumer() read all 3,000 records of the run's topic
    const section = clientMarkdown(figures, 3_000, 1, [], []);
    expect(sectionOf(`# x\n\n${section}`, clientHeading)).toBe(section);
    expect(section).toMatch(/\| produce, records\/s .* \| [\d,]+ \| [\d,]+ \| \d+\.\d\d × \|/);
    expect(section).toMatch(/\| consume through `consumer\(\{ groupId \}\)`.* \| [\d,]+ \| [\d,]+ \| \d+\.\d\d × \|/);
  });

  it("runs a short soak, sampling memory and the partition's bounded structures", async () => {
    const result = await runSoak(endpoint("binary"), 2 / 60, 0.5, () => {});
    expect(result.samples.length).toBeGreaterThanOrEqual(2);
    expect(result.samples.at(-1)!.produced).toBeGreaterThan(0);
    const section = soakMarkdown(result, "d", "c");
    expect(sectionOf(`# x\n\n${section}`, soakHeading)).toBe(section);
  });

  // Issue 19 (bench/sealed-reads.ts): a small sealed log read through the router from R2.
  it("measures a run of the bill: the client's requests, the billing meter's counts, and every record consumed (issue 19)", async () => {
    // Streams first: a consumer that leaves cancels its long poll, which the meter then counts as in flight for good (bench/bill.ts gives each case its own server).
    for (const consumers of ["websocket", "long-poll"] as const) {
      const run = await runBillCase(server.url, server.processGroupId, {
        topic: `smoke-bill-${consumers}`, partitions: 2, replicationFactor: 1, consumerGroups: 2, consumers,
        messagesPerSecond: 20, messageBytes: 100, seconds: 1,
        // --bill-zstd's case on one of them: JSON values, the producer on zstd (issue 27).
        ...(consumers === "websocket" ? { producer: { compression: "zstd" as const }, values: "json" as const } : { producer: {} }),
        // --bill-transactions' case on the other: a transactional producer committing every 300 ms (issue 28).
        ...(consumers === "long-poll" ? { transactional: { transactionalId: "smoke-bill-txn", commitEveryMs: 300 } } : {}),
      }, () => undefined, 0); // no wait for the earlier rows' long polls to end: nothing here is a figure
      expect(run.messagesConsumed).toBe(run.messagesProduced * 2);
      expect(run.produceRequests).toBeGreaterThan(0);
      expect(run.workerRequests).toBeGreaterThanOrEqual(run.produceRequests);
      expect(run.objectRequests).toBeGreaterThanOrEqual(run.produceRequests);
      expect(run.sqliteRowsWritten).toBeGreaterThanOrEqual(run.produceRequests);
      expect(run.objectActiveMs).toBeGreaterThan(0);
    }
  });

  it("measures compressed topics (issue 27): the client producing none, lz4 and zstd, the stored bytes, JSON and binary fetch", async () => {
    const lines = await measureCompressedTopics(server.url, { runs: 1, records: 2_000, log: () => undefined });
    expect(lines.filter((line) => /^\| (216-byte bench records|JSON events) \| (none|lz4|zstd) \| \d+k \| \d\.\d\d × \|/.test(line))).toHaveLength(6);
    expect(lines.filter((line) => /^\| .* \| (json|binary) fetch of a (lz4|zstd) topic \| \d+k \(none: \d+k\) \| \d+\.\d\d × \|/.test(line))).toHaveLength(6);
    const ratio = Number(/^\| JSON events \| zstd \|.*compression ratio (\d+\.\d\d) ×/m.exec(lines.join("\n"))![1]);
    expect(ratio).toBeGreaterThan(2); // what the describe's storage says the zstd topic holds
  });

  it("measures transactions (issue 28): transactional against idempotent produce, read_committed against read_uncommitted, commit latency", async () => {
    const figures = await measureTransactionRows(server.url, { runs: 1, sizes: { transactions: 2, recordsPerTransaction: 100, consumeTransactions: 4, abortEvery: 2 }, log: () => undefined });
    expect(figures.produce.map((row) => [row.partitions, row.transactional.length, row.awaited.length, row.idempotent.length, row.commitMs.length])).toEqual([[1, 1, 1, 1, 2], [4, 1, 1, 1, 2]]);
    // Two of the four transactions aborted: read_committed hands on half the records, read_uncommitted all (the markers are no records).
    expect([figures.consume.committedRecords, figures.consume.uncommittedRecords, figures.consume.logEnd]).toEqual([200, 400, 404]);
    const lines = transactionsMarkdown(figures);
    expect(lines.filter((line) => /^\| transactional produce, 100-record transactions, [14] partitions?, records\/s \(send, then commit: the writes carry the commit\) \| [\d,]+ \| idempotent, the same sends: [\d,]+ \| \d+\.\d\d × \| ≥ 0\.7 × \((met|missed)\) \|$/.test(line))).toHaveLength(2);
    expect(lines.filter((line) => /^\| transactional produce, 100-record transactions, [14] partitions?, records\/s, each send awaited before the commit \(the end a request of its own\) \| [\d,]+ \| idempotent, the same sends: [\d,]+ \| \d+\.\d\d × \| informative \|$/.test(line))).toHaveLength(2);
    expect(lines.filter((line) => /^\| [14] partitions? \| \d+\.\d ms \| \d+\.\d ms \| 2 \|$/.test(line))).toHaveLength(2);
  });

  it("measures schema validation on produce (issue 30): off, by id, full Avro and JSON, and the lookup by id", async () => {
    const figures = await measureSchemaValidation(server.url, server.processGroupId, { runs: 1, records: 500, lookups: 20, log: () => undefined });
    for (const mode of ["off", "id", "full-avro", "full-json"] as const) expect(figures.produce[mode].recordsPerSecond).toHaveLength(1);
    expect(figures.lookup.p99Ms).toBeGreaterThanOrEqual(figures.lookup.p50Ms);
    const lines = schemaValidationMarkdown(figures);
    expect(lines.filter((line) => /^\| (no|schema id|full) validation.* \| [\d,]+ \| \d+\.\d\d × \| /.test(line))).toHaveLength(4);
    expect(lines.join("\n")).toMatch(/\| lookup by id \| \d+\.\d\d ms \| \d+\.\d\d ms \| 20 \|/);
  });

  it("measures catch-up reads from R2 against the tail, with the partition leader's requests", async () => {
    const figures = await measureSealedReads(endpoint, ["sealed-reads.binary"], 1, () => {}, { recordsPerTopic: 5_000, recordsPerFetchMax: 1_000 });
    const figure = figures[0]!;
    expect(figure.segments).toBeGreaterThan(0);
    // Five fetches a pass: the tail's all reach the object; from R2, only the one reaching the sealed end.
    expect(figure.tail[0]!.objectRequestsPer1000).toBeGreaterThanOrEqual(1);
    expect(figure.fromR2[0]!.objectRequestsPer1000).toBeLessThan(figure.tail[0]!.objectRequestsPer1000);
    const section = sealedReadsMarkdown(figures, "d", "c");
    expect(sectionOf(`# x\n\n${section}`, sealedReadsHeading)).toBe(section);
  });
});

describe("the benchmark's startup rows", () => {
  it("starts Tributary with startTributary() and tributary serve, and reports both", async () => {
    const figures = await measureStartup(startupRows.map((row) => row.id), 1, () => {});
    expect(figures.map((figure) => figure.id)).toEqual(["startup.start-tributary", "startup.serve"]);
    for (const figure of figures) expect(figure.medianMs).toBeGreaterThan(0);
    expect(figures[0]!.firstMs).toBeGreaterThan(0);
    const section = startupMarkdown(figures, "d", "c");
    expect(sectionOf(`# x\n\n${section}`, "## Startup")).toBe(section);
    expect(section).toContain("`tributary serve --data DIR`");
  });
});
