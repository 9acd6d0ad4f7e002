/**
 * The commit carried by a transaction's last writes (docs/transactions.md, "The commit carried
 * by the last writes"): a client that has its last records still to send when it commits sends
 * them with `?commitAfterWrites=N` — N writes, one per partition, all carrying the same commit —
 * instead of a separate end request. Each write's router, once its append is durable, reports
 * it to the coordinator here; when N distinct partitions have reported, the last report runs the
 * end (the same rule and the same durable decision as `POST …/end`) and every report is answered
 * with its outcome. Nothing is decided before then: a round that fails (a write refused for good)
 * or waits past `waitMs` for the rest answers each report "not ended", and the client ends the
 * transaction with its own request, as without the parameter.
 *
 * The round is kept in memory only, after it settles too: a write retried because its answer was
 * lost finds the outcome and its first attempt's offsets here. A coordinator restarted meanwhile
 * has neither; the retry is then refused by the epoch rule (the end bumped it) and the client's
 * commit fails with that refusal, although it committed (Kafka's commit whose answer is lost
 * leaves the same doubt): the coordinator's `lastEnd` says which it was.
 */
import { TributaryError } from "../errors.ts";
import type { ProducerIdentity } from "./transaction-metadata.ts";

/** One write's append, as its router reports it. */
export interface CarriedWrite {
  topic: string;
  partition: number;
  baseOffset: number;
  lastOffset: number;
  /** A LogAppendTime topic's append time. */
  timestamp?: number;
}

/** How a round ended for its reports: the producer's next identity, or why the commit was not made here. */
export type CarriedCommitAnswer = { ended: ProducerIdentity } | { ended: null; error: { code: string; message: string } };

interface Round {
  key: string;
  writes: Map<string, CarriedWrite>;
  waiters: ((answer: CarriedCommitAnswer) => void)[];
  cancelTimer: () => void;
  /** The last report is running the end: reports meanwhile (retries) wait for it. */
  committing: boolean;
  answer: CarriedCommitAnswer | null;
}

function roundKey(identity: ProducerIdentity, writes: number): string {
  return `${identity.producerId}/${identity.producerEpoch}/${writes}`;
}

function partitionKey(write: { topic: string; partition: number }): string {
  return `${write.topic}\u0000${write.partition}`;
}

function notEnded(code: string, message: string): CarriedCommitAnswer {
  return { ended: null, error: { code, message } };
}

/** The clock of a coordinator's rounds: `run` after `ms`, answering its cancel. */
export function runAfter(ms: number, run: () => void): () => void {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
}

/** One coordinator's rounds: the one open now, or the last one settled (for retried writes). */
export class CarriedCommits {
  #round: Round | null = null;
  readonly #waitMs: number;
  readonly #schedule: (ms: number, run: () => void) => () => void;

  /** `schedule`: runs `run` after `ms`, answering a cancel (setTimeout in the object, a fake clock in tests). */
  constructor(waitMs: number, schedule: (ms: number, run: () => void) => () => void) {
    this.#waitMs = waitMs;
    this.#schedule = schedule;
  }

  /**
   * A write of the round is durable. Resolves when the round settles; the report that completes
   * it runs `commit` (the end's rule), whose refusal (a TributaryError) is every report's answer.
   */
  async arrive(identity: ProducerIdentity, writes: number, write: CarriedWrite, commit: () => Promise<ProducerIdentity>): Promise<CarriedCommitAnswer> {
    const round = this.#roundFor(identity, writes);
    if (round.answer !== null) {
      // A retried write: the answer it would have had, when its first attempt counted; a late one
      // the round's reason when it ended without the commit (never a commit it was not part of).
      if (round.writes.has(partitionKey(write)) || round.answer.ended === null) return round.answer;
      return notEnded("INVALID_TXN_STATE", "the writes carrying this commit were already answered");
    }
    round.writes.set(partitionKey(write), write);
    if (round.committing || round.writes.size < writes) return new Promise((resolve) => round.waiters.push(resolve));
    round.committing = true;
    round.cancelTimer();
    let answer: CarriedCommitAnswer;
    try {
      answer = { ended: await commit() };
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      answer = notEnded(error.code, error.message);
    }
    this.#settle(round, answer);
    return answer;
  }

  /**
   * A write of the round failed. Answers the write as its first attempt had it when the round
   * ended with it (its answer was lost and the retry met the bumped epoch); otherwise a
   * failure for good (not `retriable`) settles the open round without the commit.
   */
  failed(identity: ProducerIdentity, writes: number, write: { topic: string; partition: number }, error: { code: string; message: string; retriable: boolean }): { write: CarriedWrite; answer: CarriedCommitAnswer } | null {
    const round = this.#round;
    if (round === null || round.key !== roundKey(identity, writes)) return null;
    const first = round.writes.get(partitionKey(write));
    if (round.answer !== null) return first !== undefined && round.answer.ended !== null ? { write: first, answer: round.answer } : null;
    if (!error.retriable && !round.committing) this.#settle(round, notEnded(error.code, `a write carrying the commit failed (${write.topic}/${write.partition}): ${error.message}`));
    return null;
  }

  /** The round of this identity and count: the current one, or a new one (a round still open for another is answered "not ended"). */
  #roundFor(identity: ProducerIdentity, writes: number): Round {
    const key = roundKey(identity, writes);
    const current = this.#round;
    if (current !== null && current.key === key) return current;
    if (current !== null && current.answer === null) this.#settle(current, notEnded("INVALID_TXN_STATE", "another transaction's writes carried a commit"));
    const round: Round = { key, writes: new Map(), waiters: [], cancelTimer: () => {}, committing: false, answer: null };
    round.cancelTimer = this.#schedule(this.#waitMs, () => {
      if (round.answer === null) this.#settle(round, notEnded("REQUEST_TIMED_OUT", `${writes - round.writes.size} of the ${writes} writes carrying the commit did not arrive within ${this.#waitMs} ms`));
    });
    this.#round = round;
    return round;
  }

  #settle(round: Round, answer: CarriedCommitAnswer): void {
    round.cancelTimer();
    round.answer = answer;
    for (const resolve of round.waiters.splice(0)) resolve(answer);
  }
}
