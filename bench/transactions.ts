/**
 * Issue 28's rows (`npm run bench -- --transactions [--runs N] [--no-write]`): one `wrangler dev`,
 * Tributary's client (src/client), RF 1, records of 16 + 200 B (bench/payloads.ts); each figure
 * the median of the runs, each ratio against its baseline measured in the same run, the two
 * sides of a pair taking turns at going first.
 *
 *   produce   `transactions` transactions of 1,000 records into a fresh topic of one or four
 *             partitions (keyed records: the Kafka partitioner spreads them), each
 *             `transaction()`, `send()` of its 1,000 records, `commit()`, one after another,
 *             against the idempotent producer (the default) sending the same 1,000-record sends
 *             one after another, each awaited, into a topic of its own: the same writes, so the
 *             ratio is what the transactions add (adding partitions, the end, the markers). The
 *             transactional producer used as Kafka's is (the sends not awaited before the commit,
 *             which sends them: its writes carry the commit, no end request), and, a second
 *             row, with each send awaited before the commit (the end is then a request of its
 *             own). Both producers with `lingerMs: 0` and `requestsPerSecond: Infinity` (the pace
 *             would hold both at 2 requests a second a partition) and one warm-up send each
 *             (init and producer ids are not timed)
 *   commit    each `commit()` of the awaited-sends transactions, timed after its sends were
 *             answered: the end request, its markers on every partition, the answer. p50 and p99
 *             over every run
 *   consume   one partition of `consumeTransactions` 1,000-record transactions, every
 *             `abortEvery`-th aborted, read from offset 0 to the log end with
 *             `topic(t).fetch(0, offset, { maxRecords: 10000, maxBytes: 8 MiB })` (records
 *             decoded) read_committed (the default) and with `readUncommitted: true`; the ratio is
 *             of log offsets covered per second (the same log, so the same work for the server;
 *             read_committed hands fewer records to the application)
 *
 * Writes the "## Transactions (issue 28)" section of bench/RESULTS.md (unless --no-write). The
 * bill of a producer committing once a second is `--bill-transactions` (bench/bill.ts).
 */
import { join } from "node:path";
import { Tributary, type Producer } from "../src/client/index.ts";
import { repositoryRoot } from "../test/e2e/support/wrangler-dev.ts";
import { median, percentile } from "./measure.ts";
import { makeRecords, type BenchRecord } from "./payloads.ts";
import { describeEnvironment, writeSection } from "./report.ts";
import { startServer } from "./servers.ts";

export const transactionsHeading = "## Transactions (issue 28)";

export interface TransactionSizes {
  /** Transactions (and idempotent sends) of `recordsPerTransaction` per produce run. */
  transactions: number;
  recordsPerTransaction: number;
  /** Transactions in the consume rows' log. */
  consumeTransactions: number;
  abortEvery: number;
}

const defaultSizes: TransactionSizes = { transactions: 40, recordsPerTransaction: 1_000, consumeTransactions: 100, abortEvery: 4 };
const recordsPerFetch = 10_000;
const fetchMaxBytes = 8 * 1024 * 1024;
const unpaced = { lingerMs: 0, requestsPerSecond: Infinity } as const;

export interface TransactionFigures {
  sizes: TransactionSizes;
  runs: number;
  /** Per partitions (1, 4): records/s of each run (transactional: the commit carried by the writes; awaited: sends awaited, then the end request). */
  produce: { partitions: number; transactional: number[]; awaited: number[]; idempotent: number[]; commitMs: number[] }[];
  /** Log offsets covered per second, and records handed to the application per run. */
  consume: { committed: number[]; uncommitted: number[]; committedRecords: number; uncommittedRecords: number; logEnd: number };
}

type Messages = { key: string; value: string }[];

function chunksOf(records: BenchRecord[], size: number): Messages[] {
  const chunks: Messages[] = [];
  for (let start = 0; start < records.length; start += size) chunks.push(records.slice(start, start + size).map(({ key, value }) => ({ key, value })));
  return chunks;
}

async function idempotentRun(client: Tributary, topic: string, chunks: Messages[]): Promise<number> {
  const producer = client.producer(unpaced);
  try {
    await producer.send({ topic, messages: [{ key: "warm-up", value: "x" }] });
    const startedAt = performance.now();
    for (const messages of chunks) await producer.send({ topic, messages });
    return chunks.reduce((sum, chunk) => sum + chunk.length, 0) / ((performance.now() - startedAt) / 1000);
  } finally {
    await producer.close();
  }
}

async function transactionalRun(client: Tributary, topic: string, chunks: Messages[], commitMs: number[] | undefined): Promise<number> {
  const producer = client.producer({ ...unpaced, transactionalId: `${topic}-producer` });
  try {
    await commitOne(producer, topic, [{ key: "warm-up", value: "x" }]);
    const startedAt = performance.now();
    for (const messages of chunks) {
      if (commitMs === undefined) await commitCarried(producer, topic, messages);
      else commitMs.push(await commitOne(producer, topic, messages));
    }
    return chunks.reduce((sum, chunk) => sum + chunk.length, 0) / ((performance.now() - startedAt) / 1000);
  } finally {
    await producer.close();
  }
}

/** One transaction of `messages`; answers how long its commit took once its sends were answered. */
async function commitOne(producer: Producer, topic: string, messages: Messages, abort = false): Promise<number> {
  const transaction = await producer.transaction();
  await transaction.send({ topic, messages });
  const startedAt = performance.now();
  await (abort ? transaction.abort() : transaction.commit());
  return performance.now() - startedAt;
}

/** One transaction as Kafka's producer is used: the send not awaited before the commit, whose writes carry it. */
async function commitCarried(producer: Producer, topic: string, messages: Messages): Promise<void> {
  const transaction = await producer.transaction();
  const sent = transaction.send({ topic, messages });
  await transaction.commit();
  await sent;
}

/** Reads the whole log of partition 0 at one isolation level: log offsets covered per second, and the records the application got. */
async function consumeRun(client: Tributary, topic: string, logEnd: number, readUncommitted: boolean): Promise<{ offsetsPerSecond: number; records: number }> {
  const startedAt = performance.now();
  let offset = 0;
  let records = 0;
  while (offset < logEnd) {
    const answer = await client.topic(topic).fetch(0, offset, { maxRecords: recordsPerFetch, maxBytes: fetchMaxBytes, readUncommitted });
    if (answer.nextOffset <= offset) throw new Error(`fetch of ${topic} (readUncommitted ${readUncommitted}): no progress at ${offset}`);
    records += answer.records.length;
    offset = answer.nextOffset;
  }
  return { offsetsPerSecond: logEnd / ((performance.now() - startedAt) / 1000), records };
}

/** The rows against a running server at `url` (also the bench smoke test's, with small sizes). */
export async function measureTransactionRows(url: string, options: { runs: number; sizes?: TransactionSizes; log: (line: string) => void }): Promise<TransactionFigures> {
  const { runs, log } = options;
  const sizes = options.sizes ?? defaultSizes;
  const client = new Tributary({ url, logLevel: "error" });
  const admin = client.admin();
  const stamp = Date.now().toString(36);
  const chunks = chunksOf(makeRecords(sizes.transactions * sizes.recordsPerTransaction), sizes.recordsPerTransaction);
  const produce: TransactionFigures["produce"] = [];
  for (const partitions of [1, 4]) {
    const figure = { partitions, transactional: [] as number[], awaited: [] as number[], idempotent: [] as number[], commitMs: [] as number[] };
    for (let run = -1; run < runs; run++) { // run -1: a warm-up of each, not counted
      const sides = [["transactional", figure.transactional], ["awaited", figure.awaited], ["idempotent", figure.idempotent]] as const;
      for (const [kind, into] of run % 2 === 0 ? [...sides].reverse() : sides) {
        const topic = `txn-${stamp}-p${partitions}-${kind}-${run + 1}`;
        await admin.topics.create({ name: topic, partitions, replicationFactor: 1 });
        const commits: number[] = [];
        const rate = kind === "idempotent" ? await idempotentRun(client, topic, chunks) : await transactionalRun(client, topic, chunks, kind === "awaited" ? commits : undefined);
        if (run < 0) continue;
        into.push(rate);
        figure.commitMs.push(...commits);
        log(`${partitions} partition(s), ${kind}, run ${run + 1}: ${Math.round(rate).toLocaleString("en")} records/s`);
      }
    }
    produce.push(figure);
  }

  // The consume rows' log: committed and aborted transactions on one partition.
  const topic = `txn-${stamp}-read`;
  await admin.topics.create({ name: topic, partitions: 1, replicationFactor: 1 });
  const records = chunksOf(makeRecords(sizes.consumeTransactions * sizes.recordsPerTransaction, 11), sizes.recordsPerTransaction);
  const producer = client.producer({ ...unpaced, transactionalId: `${topic}-producer` });
  try {
    for (const [index, messages] of records.entries()) await commitOne(producer, topic, messages, (index + 1) % sizes.abortEvery === 0);
  } finally {
    await producer.close();
  }
  const logEnd = (await client.topic(topic).offset(0, "latest")).offset;
  const consume = { committed: [] as number[], uncommitted: [] as number[], committedRecords: 0, uncommittedRecords: 0, logEnd };
  for (let run = -1; run < runs; run++) {
    const order = run % 2 === 0 ? [true, false] : [false, true];
    for (const readUncommitted of order) {
      const measured = await consumeRun(client, topic, logEnd, readUncommitted);
      if (run < 0) continue;
      (readUncommitted ? consume.uncommitted : consume.committed).push(measured.offsetsPerSecond);
      if (readUncommitted) consume.uncommittedRecords = measured.records;
      else consume.committedRecords = measured.records;
    }
    if (run >= 0) log(`consume run ${run + 1}: read_committed ${Math.round(consume.committed.at(-1)!).toLocaleString("en")} offsets/s, read_uncommitted ${Math.round(consume.uncommitted.at(-1)!).toLocaleString("en")}`);
  }
  return { sizes, runs, produce, consume };
}

const rate = (value: number) => Math.round(value).toLocaleString("en");
const times = (value: number) => `${value.toFixed(2)} ×`;
const verdict = (ratio: number, target: number) => `≥ ${target} × ${ratio >= target ? "(met)" : "(missed)"}`;

/** The section's lines (without the heading's paragraph). */
export function transactionsMarkdown(figures: TransactionFigures): string[] {
  const { sizes } = figures;
  const lines = ["| row | figure (median) | baseline (same run) | × baseline | target (issue 28) |", "|---|---|---|---|---|"];
  for (const { partitions, transactional, awaited, idempotent } of figures.produce) {
    const ratio = median(transactional) / median(idempotent);
    const awaitedRatio = median(awaited) / median(idempotent);
    const what = `${sizes.recordsPerTransaction.toLocaleString("en")}-record transactions, ${partitions} partition${partitions > 1 ? "s" : ""}, records/s`;
    lines.push(`| transactional produce, ${what} (send, then commit: the writes carry the commit) | ${rate(median(transactional))} | idempotent, the same sends: ${rate(median(idempotent))} | ${times(ratio)} | ${verdict(ratio, 0.7)} |`);
    lines.push(`| transactional produce, ${what}, each send awaited before the commit (the end a request of its own) | ${rate(median(awaited))} | idempotent, the same sends: ${rate(median(idempotent))} | ${times(awaitedRatio)} | informative |`);
  }
  const { consume } = figures;
  const readRatio = median(consume.committed) / median(consume.uncommitted);
  lines.push(`| read_committed consume, log offsets/s (${consume.committedRecords.toLocaleString("en")} of ${consume.uncommittedRecords.toLocaleString("en")} records handed on) | ${rate(median(consume.committed))} | read_uncommitted: ${rate(median(consume.uncommitted))} | ${times(readRatio)} | ${verdict(readRatio, 0.9)} |`);
  lines.push("", "| commit latency (`commit()` after its sends were answered) | p50 | p99 | commits |", "|---|---|---|---|");
  for (const { partitions, commitMs } of figures.produce) {
    const sorted = [...commitMs].sort((a, b) => a - b);
    lines.push(`| ${partitions} partition${partitions > 1 ? "s" : ""} | ${percentile(sorted, 0.5).toFixed(1)} ms | ${percentile(sorted, 0.99).toFixed(1)} ms | ${sorted.length} |`);
  }
  return lines;
}

export async function transactionsBench(options: { runs: number; write: boolean; log: (line: string) => void }): Promise<void> {
  const server = await startServer("tributary", false);
  const figures = await measureTransactionRows(server.url, { runs: options.runs, log: options.log }).finally(() => server.stop());
  const environment = describeEnvironment();
  const { sizes } = figures;
  const section = [
    transactionsHeading,
    "",
    `\`npm run bench -- --transactions\` (bench/transactions.ts), ${environment.date}, ${environment.machine}, commit ${environment.commit}; ${options.runs} runs, medians; one \`wrangler dev\`, RF 1, Tributary's client (\`lingerMs: 0\`, \`requestsPerSecond: Infinity\`). Produce: ${sizes.transactions} transactions of ${sizes.recordsPerTransaction.toLocaleString("en")} records a run against the idempotent producer's same sends, each in a fresh topic. Consume: one partition of ${sizes.consumeTransactions} transactions of ${sizes.recordsPerTransaction.toLocaleString("en")} records, every ${sizes.abortEvery}th aborted, read whole at each isolation level. The bill: \`--bill-transactions\`.`,
    "",
    ...transactionsMarkdown(figures),
  ].join("\n");
  console.log(`\n${section}\n`);
  if (options.write) {
    const path = join(repositoryRoot, "bench", "RESULTS.md");
    writeSection(path, transactionsHeading, section);
    options.log(`wrote ${transactionsHeading} in ${path}`);
  }
}
