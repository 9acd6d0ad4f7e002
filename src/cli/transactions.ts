/**
 * `tributary transactions list|describe|abort|describe-producers` (Kafka's kafka-transactions.sh):
 * the transactional ids, one id's state, an operator's abort of a hanging transaction, and a
 * partition's active producers (docs/transactions.md).
 */
import type { PartitionProducer, TransactionDescription } from "../client/index.ts";
import { partitionsPerTopicMax } from "../limits.ts";
import { integerValue, UsageError, type OptionName } from "./args.ts";
import { output, type CommandContext } from "./context.ts";
import { formatAge } from "./groups.ts";
import { countOf, renderTable } from "./table.ts";

export const transactionsOptions: Record<string, OptionName[]> = {
  list: [],
  describe: [],
  abort: [],
  "describe-producers": ["topic", "partition"],
};

function transactionalId(context: CommandContext): string {
  const [id, ...extra] = context.args;
  if (id === undefined) throw new UsageError("name the transactional id");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return id;
}

const partitionsOf = (entries: { topic: string; partition: number }[]) => entries.map(({ topic, partition }) => `${topic}:${partition}`).join(" ");

function describeTransaction(transaction: TransactionDescription, nowMs: number): string {
  const lines = [
    `transaction ${transaction.transactionalId}  state ${transaction.state}  producer ${transaction.producerId} epoch ${transaction.producerEpoch}  timeout ${transaction.transactionTimeoutMs / 1000} s`,
  ];
  if (transaction.transactionStartTimeMs !== null) lines.push(`started ${formatAge(nowMs - transaction.transactionStartTimeMs)}`);
  lines.push(`partitions: ${transaction.partitions.length === 0 ? "none" : partitionsOf(transaction.partitions)}`);
  lines.push(`groups: ${transaction.groups.length === 0 ? "none" : transaction.groups.join(" ")}`);
  const pending = transaction.pendingMarkers;
  if (pending !== null) {
    const waiting = [...pending.partitions.map(({ topic, partition }) => `${topic}:${partition}`), ...pending.groups.map((group) => `group ${group}`)];
    lines.push(`${pending.result} markers still to write: ${waiting.join(" ")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** As Kafka's tool prints them: one row per producer, -1 where nothing is known. */
function producersTable(producers: PartitionProducer[], nowMs: number): string {
  if (producers.length === 0) return "no active producers\n";
  return renderTable(
    ["PRODUCER-ID", "EPOCH", "LAST-SEQUENCE", "LAST-WRITE", "COORDINATOR-EPOCH", "TXN-START-OFFSET"],
    producers.map((p) => [p.producerId, p.producerEpoch, p.lastSequence, p.lastTimestamp < 0 ? "-1" : formatAge(nowMs - p.lastTimestamp), p.coordinatorEpoch, p.currentTxnStartOffset]),
  );
}

export async function transactionsCommand(subcommand: string, context: CommandContext): Promise<void> {
  const transactions = context.client.admin().transactions;
  switch (subcommand) {
    case "list": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const listed = await transactions.list();
      const nowMs = Date.now();
      return output(context, listed, () => {
        if (listed.transactions.length === 0) return "no transactions\n";
        const table = renderTable(
          ["TRANSACTIONAL-ID", "PRODUCER-ID", "EPOCH", "TIMEOUT", "INITIALIZED"],
          listed.transactions.map((t) => [t.transactionalId, t.producerId, t.producerEpoch, `${t.transactionTimeoutMs / 1000} s`, formatAge(nowMs - t.initializedAt)]),
        );
        return listed.truncated ? `${table}the first ${countOf(listed.transactions.length, "transactional id")} only (more exist)\n` : table;
      });
    }
    case "describe": {
      const transaction = await transactions.describe(transactionalId(context));
      return output(context, transaction, () => describeTransaction(transaction, Date.now()));
    }
    case "abort": {
      const id = transactionalId(context);
      const transaction = await transactions.abort(id);
      return output(context, transaction, () => `aborted the open transaction of ${id} (state ${transaction.state}); its producer's commit will be refused\n`);
    }
    case "describe-producers": {
      if (context.args.length > 0) throw new UsageError(`unexpected arguments: ${context.args.join(" ")}`);
      const topic = context.values.topic;
      const partition = integerValue(context.values, "partition", 0, partitionsPerTopicMax - 1);
      if (typeof topic !== "string" || partition === undefined) throw new UsageError("transactions describe-producers needs --topic T and --partition N");
      const producers = await transactions.describeProducers(topic, partition);
      return output(context, { producers }, () => producersTable(producers, Date.now()));
    }
    default:
      throw new UsageError(`unknown command: transactions ${subcommand}`);
  }
}
