/**
 * The producer's options (producer.ts), their defaults and their checks, read once when the
 * producer is made: a wrong option is a RangeError there, never a failed send later.
 */
import { transactionalIdLengthMax, transactionTimeoutMsDefault, transactionTimeoutMsMax, transactionTimeoutMsMin } from "../limits.ts";
import { compressionCodecs, isCompressionCodec, type CompressionCodec } from "../protocol/compression/codecs.ts";
import { batchBytesMax } from "./partition-write.ts";
import { RequestPacer } from "./request-pacer.ts";
import { stickyPartitionBytesDefault } from "./sticky-partitioner.ts";
import type { Acks } from "./types.ts";

export interface ProducerOptions {
  /** How long a partition's first record waits for others to join its batch. Default 5 (Kafka's linger.ms). */
  lingerMs?: number;
  /**
   * Per partition, how many requests a second may start for records that did not fill a batch
   * (a full batch and `flush()` go at once): records coming faster wait to share a request,
   * since each request is billed whatever it carries. Default 2 (a burst of 2, then one every
   * 500 ms); `Infinity` starts one as soon as `lingerMs` is over, as Kafka's producers do.
   */
  requestsPerSecond?: number;
  /** A partition's queue is sent once it holds this many bytes; also the largest batch. Default and maximum 1 MiB. */
  batchBytes?: number;
  /**
   * Keyless messages go to one partition until about this many bytes went to it, then to
   * another (Kafka's sticky partitioner switches per `batch.size`). Default 16384.
   */
  stickyPartitionBytes?: number;
  /** Default "all". */
  acks?: Acks;
  /**
   * Default true with `acks: "all"` (Kafka's enable.idempotence since 3.0): batches carry a
   * producer id and sequences, so a retry is never written twice. It needs `acks: "all"`; with
   * another `acks` and no `idempotent` option it is off, as in Kafka.
   */
  idempotent?: boolean;
  /** Bytes queued or in flight before `send` waits for room. Default 32 MiB (Kafka's buffer.memory). */
  bufferBytes?: number;
  /**
   * The codec each batch's records are compressed with before it is sent (kafkajs's option;
   * Kafka's compression.type): "none" (default), "gzip", "snappy", "lz4" or "zstd". The
   * partition stores the batch as sent unless the topic's `compression.type` says otherwise.
   */
  compression?: CompressionCodec;
  /**
   * Makes a transactional producer (kafkajs's option; Kafka's transactional.id): records go out
   * only inside `await producer.transaction()`, which commits or aborts them with offsets, all
   * or nothing. The id names the producer across restarts: a new producer with the same id
   * fences this one. Idempotent, with acks "all". 1 to 256 characters.
   */
  transactionalId?: string;
  /** ms a transaction may stay open before the coordinator aborts it (kafkajs's option). Default 60000, 1000 to 900000. */
  transactionTimeout?: number;
}

/** The options as the producer uses them. */
export interface ResolvedProducerOptions {
  lingerMs: number;
  /** Undefined when requestsPerSecond is Infinity. */
  pacer: RequestPacer | undefined;
  batchBytes: number;
  stickyPartitionBytes: number;
  bufferBytes: number;
  acks: Acks;
  idempotent: boolean;
  compression: CompressionCodec;
  transactional: { transactionalId: string; transactionTimeoutMs: number } | undefined;
}

/** requestsPerSecond's default: it keeps the bill's workloads A and B within issue 19's targets (bench/README.md, "The monthly bill"), while a record or two a second still goes at once. */
const requestsPerSecondDefault = 2;
/** One request a minute: a slower pace would hold records longer than lingerMs's own bound (60 s). */
const requestsPerSecondMin = 1 / 60;

function checkOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`producer option ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

export function resolveProducerOptions(options: ProducerOptions): ResolvedProducerOptions {
  const requestsPerSecond = options.requestsPerSecond ?? requestsPerSecondDefault;
  if (typeof requestsPerSecond !== "number" || !(requestsPerSecond >= requestsPerSecondMin)) {
    throw new RangeError(`producer option requestsPerSecond must be a number of at least ${requestsPerSecondMin} (Infinity: no pacing), got ${String(requestsPerSecond)}`);
  }
  const batchBytes = checkOption("batchBytes", options.batchBytes ?? batchBytesMax, 1, batchBytesMax);
  const acks = options.acks ?? "all";
  if (acks !== 0 && acks !== 1 && acks !== "all") throw new RangeError(`producer option acks must be 0, 1 or "all"`);
  const idempotent = options.idempotent ?? acks === "all";
  if (idempotent && acks !== "all") throw new RangeError(`an idempotent producer needs acks "all" (API.md, Produce)`);
  const compression = options.compression ?? "none";
  if (!isCompressionCodec(compression)) throw new RangeError(`producer option compression must be one of ${compressionCodecs.join(", ")}, got ${String(compression)}`);
  return {
    lingerMs: checkOption("lingerMs", options.lingerMs ?? 5, 0, 60_000),
    pacer: requestsPerSecond === Infinity ? undefined : new RequestPacer(requestsPerSecond),
    batchBytes,
    stickyPartitionBytes: checkOption("stickyPartitionBytes", options.stickyPartitionBytes ?? stickyPartitionBytesDefault, 1, 2 ** 40),
    bufferBytes: checkOption("bufferBytes", options.bufferBytes ?? 32 * 1024 * 1024, batchBytes, 2 ** 40),
    acks,
    idempotent,
    compression,
    transactional: transactionalOptions(options, idempotent),
  };
}

function transactionalOptions(options: ProducerOptions, idempotent: boolean): ResolvedProducerOptions["transactional"] {
  const { transactionalId } = options;
  if (transactionalId === undefined) {
    if (options.transactionTimeout !== undefined) throw new RangeError("producer option transactionTimeout is for a transactional producer (transactionalId)");
    return undefined;
  }
  if (typeof transactionalId !== "string" || transactionalId.length === 0 || transactionalId.length > transactionalIdLengthMax) {
    throw new RangeError(`producer option transactionalId must be a string of 1 to ${transactionalIdLengthMax} characters`);
  }
  if (!idempotent) throw new RangeError(`a transactional producer is idempotent, with acks "all" (docs/transactions.md)`);
  const transactionTimeoutMs = checkOption("transactionTimeout", options.transactionTimeout ?? transactionTimeoutMsDefault, transactionTimeoutMsMin, transactionTimeoutMsMax);
  return { transactionalId, transactionTimeoutMs };
}
