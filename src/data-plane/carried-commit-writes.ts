/**
 * The router's side of a write carrying its transaction's commit (`?commitAfterWrites=N`;
 * docs/transactions.md, "The commit carried by the last writes"; the coordinator's side is
 * src/transactions/carried-commit.ts): the write as any transactional write (the check, the
 * acks=all append), then its report to the coordinator, whose answer says whether the
 * transaction committed. The write's own outcome never depends on the commit's: a write that
 * is durable is answered with its offsets, the commit's outcome beside them.
 */
import { isRetriable, TributaryError } from "../errors.ts";
import type { CarriedCommitAnswer, CarriedWrite } from "../transactions/carried-commit.ts";
import type { ProducerIdentity } from "../contracts/transaction-coordinator-api.ts";
import { coordinatorCalls } from "./coordinator-calls.ts";

/** What the route answers beside the write's offsets: the next identity, or why the commit was not made with the write. */
export type CarriedCommitFields = { committed: ProducerIdentity } | { commitError: { code: string; message: string } };

function fieldsOf(answer: CarriedCommitAnswer): CarriedCommitFields {
  return answer.ended === null ? { commitError: answer.error } : { committed: answer.ended };
}

/**
 * Runs `write` (check and append) and reports it. A write refused after an earlier attempt of
 * it counted in a commit that went through (its answer was lost; the end's epoch bump refuses the
 * retry) is answered as that attempt was; any other refusal is thrown, after telling the
 * coordinator (a refusal for good ends the round without the commit).
 */
export async function writeCarryingCommit(
  env: Env,
  carried: { transactionalId: string; identity: ProducerIdentity; writes: number; topic: string; partition: number },
  write: () => Promise<CarriedWrite>,
): Promise<{ write: CarriedWrite } & CarriedCommitFields> {
  const { transactionalId, identity, writes, topic, partition } = carried;
  const coordinator = coordinatorCalls(env);
  let written: CarriedWrite;
  try {
    written = await write();
  } catch (error) {
    if (!(error instanceof TributaryError)) throw error;
    const failure = { code: error.code, message: error.message, retriable: isRetriable(error) };
    const first = await coordinator.carriedWriteFailed(transactionalId, identity, writes, { topic, partition }, failure).catch(() => null);
    if (first !== null) return { write: first.write, ...fieldsOf(first.answer) };
    throw error;
  }
  try {
    return { write: written, ...fieldsOf(await coordinator.carriedWrite(transactionalId, identity, writes, written)) };
  } catch (error) {
    // The write is durable; whether the coordinator ended the transaction is unknown here: the
    // client's own end request finds out (a retried end gets the same answer).
    const known = error instanceof TributaryError ? error : new TributaryError("UNKNOWN_SERVER_ERROR", `the coordinator did not answer the write's report: ${String(error)}`);
    return { write: written, commitError: { code: known.code, message: known.message } };
  }
}
