/**
 * Bounds of transactions (issue 28): the coordinator's timeouts, a transaction's size, the
 * retries of its markers, producer epochs.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

// ---- Transactions: one coordinator object per transactional id (docs/transactions.md) ----

/**
 * The longest `transaction.timeout.ms` a producer may ask for: Kafka's broker default of
 * transaction.max.timeout.ms (15 minutes). An open transaction holds back every
 * read_committed reader of its partitions (the last stable offset stays at its first record),
 * so a producer that dies mid-transaction stalls them at most this long.
 */
export const transactionTimeoutMsMax = 900_000;

/** Kafka's producer default for transaction.timeout.ms (one minute). */
export const transactionTimeoutMsDefault = 60_000;

/**
 * The shortest timeout: a transaction spans at least one produce round trip per partition and
 * the end's markers; below a second, a healthy producer's transactions would be aborted.
 */
export const transactionTimeoutMsMin = 1_000;

/**
 * Partitions one transaction may write. The coordinator's state (one SQLite row) lists them
 * and the end writes one marker to each, in parallel: 1,000 markers are well under a second of
 * leader calls and a row of a few tens of KiB. Kafka bounds none.
 */
export const transactionPartitionsMax = 1_000;

/** Groups whose offsets one transaction commits: a consume-transform-produce loop has one. */
export const transactionGroupsMax = 16;

/** The first retry of a transaction's unwritten markers, and the longest wait between two. */
export const transactionMarkerRetryMsMin = 200;
export const transactionMarkerRetryMsMax = 10_000;

/**
 * Kafka's producer epoch is an int16: past this the coordinator moves the transactional id
 * to a new producer id (KIP-360, KIP-890), so markers and fencing never wrap.
 */
export const producerEpochMax = 32_767;

/** Transactional ids `GET /v1/transactions` answers at most (the index is one object's table). */
export const transactionsListedMax = 1_000;

/**
 * Producer ids a group remembers the last transaction marker of (the epoch that fences an
 * offset commit delayed past its transaction's end). A group takes transactional commits from
 * its few consume-transform-produce producers; past this many the least recently marked is
 * forgotten, which re-opens the late-commit window only for a producer id idle that long.
 */
export const transactionalOffsetProducersMax = 1_000;

/**
 * Transactions whose verified partitions a router isolate remembers (the produce path's check
 * that a transactional write names a partition its transaction added): one entry per producer
 * id and epoch, so a producer's next transaction (one epoch more) is a new entry and the oldest
 * go first. A forgotten entry costs one more call to the coordinator, never a wrong answer.
 */
export const verifiedTransactionsCachedMax = 10_000;

/**
 * Partitions of `_transaction_state`, the topic that anchors coordinator replicas
 * (docs/transactions.md, "Replication across regions"): a transactional id's coordinator leads
 * in the region leading partition hash(id) mod this. They spread coordinators' leadership over
 * the regions as Kafka's 50 spread it over brokers; each coordinator is its own object, so more
 * partitions add no throughput. Fixed once the topic exists (an id's partition must not move).
 */
export const transactionStatePartitions = 4;

/**
 * How long after its own deadline (a timeout, a marker retry) a follower's coordinator replica
 * waits before it asks the leader to act (docs/transactions.md, "Replication across regions"):
 * a leader that acts in time pushes the new state first, and the follower's alarm moves on.
 * A leader lost with an open transaction is found within this much past the deadline.
 */
export const transactionFollowerGraceMs = 5_000;

/**
 * How long the coordinator holds a commit carried by a transaction's last writes
 * (`?commitAfterWrites=N` on binary produce, docs/transactions.md "The commit carried by the
 * last writes") for the rest of them: the client sends them at once, so they arrive within a
 * write's round trip; one in a retry loop past this makes the others answer without the commit
 * and the client ends the transaction with its own request, as without the parameter.
 */
export const carriedCommitWaitMs = 5_000;
