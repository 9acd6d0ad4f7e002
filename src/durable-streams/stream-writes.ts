import type { Context } from "hono";
import { TributaryError, unwrap, type Result } from "../errors.ts";
import { streamAppendBytesMax } from "../limits.ts";
import { controllerStub } from "../contracts/stubs.ts";
import type { AppendAnswer } from "../contracts/replica-api.ts";
import { encodeRecordBatch, type RecordHeader } from "../protocol/record-batch.ts";
import { compressBatch } from "../protocol/record-batch-compression.ts";
import { streamClosedHeader, type StreamAppendCondition } from "../protocol/stream-records.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { recordRules } from "../topics/record-rules.ts";
import { authorize, authorizeTopicCreation } from "../router/authorize.ts";
import type { RouterEnv } from "../router/context.ts";
import { callLeader } from "../data-plane/leader-calls.ts";
import { checkSchemaIds } from "../data-plane/schema-id-checks.ts";
import { collectSchemaIds, payloadField, type SchemaIdRef } from "../topics/schema-id-refs.ts";
import { rememberTopic } from "../data-plane/metadata-cache.ts";
import { readBodyBytes } from "../router/request-body.ts";
import { jsonAppendValue } from "./json-messages.ts";
import { StreamError } from "./stream-errors.ts";
import { checkContentType, defaultContentType, isJsonMode, mediaTypeOf, parseClosed, parseLifetime, parseProducer, parseStreamSeq, type ProducerHeaders, type StreamLifetime } from "./stream-headers.ts";
import { formatStreamOffset } from "./stream-offsets.ts";
import { streamHeaders, streamResponse } from "./stream-responses.ts";
import { streamTail } from "./stream-tail.ts";
import { parseFork, planFork, materializeFork, sameFork, type ForkPlan, type ForkRequest } from "./stream-forks.ts";
import { deleteExpired, findStreamTopic, gone, isExpired, liveStream, notFound, removeStream, streamInfoOf, type StreamInfo } from "./stream-topic.ts";

/** Creating, appending to and deleting streams (the protocol's sections 5.1–5.3) on their topics. */

async function readBody(request: Request): Promise<Uint8Array> {
  try {
    return await readBodyBytes(request, { maxBytes: streamAppendBytesMax });
  } catch (error) {
    if (error instanceof TributaryError) throw new StreamError(413, `an append carries at most ${streamAppendBytesMax} bytes`);
    throw error;
  }
}

/** The record value of an append's body: its bytes, or in JSON mode its messages (undefined: none). */
function storedValue(contentType: string, body: Uint8Array): Uint8Array | undefined {
  if (body.byteLength === 0) return undefined;
  return isJsonMode(contentType) ? jsonAppendValue(body) : body;
}

/**
 * A Producer-Id as the record batch's producer id: 2^52 plus 52 bits of its SHA-256, a safe
 * integer above any id the controller hands out (POST /v1/producers counts from 0).
 */
async function producerIdNumber(id: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)));
  let value = 0;
  for (let index = 0; index < 6; index++) value = value * 256 + digest[index]!; // 48 bits
  return 2 ** 52 + value * 16 + (digest[6]! >> 4); // and 4 more: below 2^53
}

interface StreamAppend {
  value: Uint8Array | undefined;
  closes: boolean;
  seq?: string;
  producer?: ProducerHeaders;
}

/** One append as one record, checked and written by the partition leader in one turn. */
async function appendRecord(env: Env, topic: TopicMetadata, append: StreamAppend): Promise<AppendAnswer> {
  const headers: RecordHeader[] = append.closes ? [{ key: streamClosedHeader, value: null }] : [];
  const record = { key: null, value: append.value ?? null, headers, timestamp: Date.now() };
  const producer = append.producer
    ? { producerId: await producerIdNumber(append.producer.id), producerEpoch: append.producer.epoch, baseSequence: append.producer.seq }
    : {};
  const rules = recordRules(topic);
  // A stream's topic with schema id validation (docs/schema-registry.md) checks an append's value as produce does.
  if (rules.schemaValidation !== undefined) {
    const refs: SchemaIdRef[] = [];
    collectSchemaIds(refs, rules.schemaValidation, { recordIndex: 0 }, payloadField(null), payloadField(record.value));
    await checkSchemaIds(env, topic.name, refs);
  }
  // A stream's topic whose compression.type names a codec stores its appends in it, as JSON produce does (issue 27).
  const codec = rules.storedCodec;
  const plain = encodeRecordBatch([record], producer);
  const batch = codec === undefined || codec === "none" ? plain : compressBatch(plain, codec);
  const condition: StreamAppendCondition = { closes: append.closes, closeOnly: append.value === undefined, ...(append.seq === undefined ? {} : { seq: append.seq }) };
  return callLeader(env, topic, 0, (stub, call) => stub.append({ ...call, batches: [batch], acks: 1, stream: condition }), { retryUnreachable: false });
}

function sameLifetime(stream: StreamInfo, lifetime: StreamLifetime): boolean {
  if (lifetime.ttlSeconds !== undefined) return stream.ttlSeconds === lifetime.ttlSeconds;
  if (lifetime.expiresAtMs !== undefined) return stream.ttlSeconds === undefined && stream.expiresAtMs === lifetime.expiresAtMs;
  return stream.expiresAtMs === undefined;
}

function lifetimeConfigs(lifetime: StreamLifetime, nowMs: number): Record<string, string> {
  if (lifetime.ttlSeconds !== undefined) return { "ds.ttl.seconds": String(lifetime.ttlSeconds), "ds.expires.at.ms": String(nowMs + lifetime.ttlSeconds * 1000) };
  if (lifetime.expiresAtMs !== undefined) return { "ds.expires.at.ms": String(lifetime.expiresAtMs) };
  return {};
}

/** An existing stream asked for again: 200 with its state when the configuration matches, else 409. */
async function existingStream(env: Env, stream: StreamInfo, request: CreateRequest): Promise<Response> {
  const sameConfig = request.fork
    ? sameFork(stream, request.fork) && (request.contentType === undefined || mediaTypeOf(stream.contentType) === mediaTypeOf(request.contentType))
    : !stream.fork && mediaTypeOf(stream.contentType) === mediaTypeOf(request.contentType ?? defaultContentType) && sameLifetime(stream, request.lifetime);
  if (stream.softDeleted || !sameConfig) throw new StreamError(409, "a stream exists at this path with another configuration");
  const tail = await streamTail(env, stream.topic);
  return streamResponse(null, 200, {
    "Content-Type": stream.contentType,
    [streamHeaders.nextOffset]: formatStreamOffset(tail.nextOffset),
    ...(tail.closed ? { [streamHeaders.closed]: "true" } : {}),
  });
}

interface CreateRequest {
  /** As given; a fork without one inherits its source's. */
  contentType: string | undefined;
  lifetime: StreamLifetime;
  fork: ForkRequest | undefined;
}

/** A fork's content type and lifetime: its own when given, else its source's; another content type than the source's is 409. */
function forkSettings(plan: ForkPlan, request: CreateRequest): { contentType: string; lifetime: StreamLifetime } {
  const source = plan.source;
  if (request.contentType !== undefined && mediaTypeOf(request.contentType) !== mediaTypeOf(source.contentType)) {
    throw new StreamError(409, `the source stream is ${source.contentType}, not ${request.contentType}`);
  }
  const inherited: StreamLifetime =
    source.ttlSeconds !== undefined ? { ttlSeconds: source.ttlSeconds } : source.expiresAtMs !== undefined ? { expiresAtMs: source.expiresAtMs } : {};
  const own = request.lifetime.ttlSeconds !== undefined || request.lifetime.expiresAtMs !== undefined;
  return { contentType: request.contentType ?? source.contentType, lifetime: own ? request.lifetime : inherited };
}

/** PUT: create the stream's topic (one partition, one replica, kept until deleted), then its initial content. */
export async function createStream(c: Context<RouterEnv>, name: string): Promise<Response> {
  const given = c.req.header("content-type");
  const request: CreateRequest = {
    contentType: given === undefined || given.trim() === "" ? undefined : checkContentType(given),
    lifetime: parseLifetime(c.req.header(streamHeaders.ttl), c.req.header(streamHeaders.expiresAt)),
    fork: parseFork(c),
  };
  const closes = parseClosed(c.req.header(streamHeaders.closed));
  authorizeTopicCreation(c, name);
  const body = await readBody(c.req.raw);
  for (let attempt = 0; ; attempt++) {
    const found = await findStreamTopic(c.env, name, { refresh: true });
    if (found) {
      const stream = streamInfoOf(found);
      if (!stream) throw new StreamError(409, `topic ${name} exists and is not a stream`);
      if (!isExpired(stream, Date.now())) return existingStream(c.env, stream, request);
      await deleteExpired(c.env, stream);
    }
    const plan = request.fork ? await planFork(c.env, request.fork) : undefined;
    const { contentType, lifetime } = plan ? forkSettings(plan, request) : { contentType: request.contentType ?? defaultContentType, lifetime: request.lifetime };
    const value = storedValue(contentType, body);
    const forkConfigs = plan ? { "ds.forked.from": plan.source.topic.name, "ds.fork.offset": String(plan.offset), "ds.fork.sub.offset": String(plan.subOffset) } : {};
    const configs = { "ds.content.type": contentType, "retention.ms": "-1", ...lifetimeConfigs(lifetime, Date.now()), ...forkConfigs };
    const created = (await controllerStub(c.env).createTopic({ name, partitions: 1, replicationFactor: 1, configs })) as Result<TopicMetadata>;
    if (!created.ok) {
      if (created.error.code === "TOPIC_ALREADY_EXISTS" && attempt === 0) continue; // created meanwhile: compare with it
      if (created.error.code === "INVALID_TOPIC_EXCEPTION") throw new StreamError(409, created.error.message);
    }
    const topic = unwrap(created);
    rememberTopic(topic);
    let nextOffset = plan ? await materializeFork(c.env, topic, plan) : 0;
    if (value !== undefined || closes) nextOffset = (await appendRecord(c.env, topic, { value, closes })).lastOffset + 1;
    return streamResponse(null, 201, {
      Location: c.req.url.split("?")[0]!,
      "Content-Type": contentType,
      [streamHeaders.nextOffset]: formatStreamOffset(nextOffset),
      ...(closes ? { [streamHeaders.closed]: "true" } : {}),
    });
  }
}

/** POST: one append (or a close, with or without final data), as the protocol's section 5.2 has it. */
export async function appendToStream(c: Context<RouterEnv>, name: string): Promise<Response> {
  const closes = parseClosed(c.req.header(streamHeaders.closed));
  const seq = parseStreamSeq(c.req.header(streamHeaders.seq));
  const producer = parseProducer(c.req.header(streamHeaders.producerId), c.req.header(streamHeaders.producerEpoch), c.req.header(streamHeaders.producerSeq));
  const given = c.req.header("content-type");
  authorize(c, "topic", name, "write");
  const body = await readBody(c.req.raw);
  if (body.byteLength === 0 && !closes) throw new StreamError(400, "an append has a body (an empty one closes the stream only with Stream-Closed: true)");
  if (body.byteLength > 0 && (given === undefined || given.trim() === "")) throw new StreamError(400, "an append names its Content-Type");
  const stream = await liveStream(c.env, name, (promise) => c.executionCtx.waitUntil(promise));
  let value: Uint8Array | undefined;
  if (body.byteLength > 0) {
    if (mediaTypeOf(checkContentType(given!)) !== mediaTypeOf(stream.contentType)) {
      throw new StreamError(409, `this stream is ${stream.contentType}, not ${given}`);
    }
    value = storedValue(stream.contentType, body);
    if (value === undefined) throw new StreamError(400, "an empty JSON array appends nothing");
  }
  const answer = await appendRecord(c.env, stream.topic, { value, closes, ...(seq === undefined ? {} : { seq }), ...(producer ? { producer } : {}) });
  c.set("producedBytes", value?.byteLength ?? 0); // the token's produce quota counts it (src/router/quotas.ts)
  const headers: Record<string, string> = { [streamHeaders.nextOffset]: formatStreamOffset(answer.lastOffset + 1) };
  if (answer.streamClosed) headers[streamHeaders.closed] = "true";
  if (producer) {
    headers[streamHeaders.producerEpoch] = String(producer.epoch);
    headers[streamHeaders.producerSeq] = String(answer.producerLastSequence ?? producer.seq);
  }
  // 200 for an idempotent producer's new data; a retry (duplicate) or a close without data is 204.
  return streamResponse(null, producer && !answer.duplicate && value !== undefined ? 200 : 204, headers);
}

/** DELETE: the stream's topic and its data — or, while forks of it live, a mark (410 from then on). */
export async function deleteStream(c: Context<RouterEnv>, name: string): Promise<Response> {
  authorize(c, "topic", name, "delete");
  const topic = await findStreamTopic(c.env, name, { refresh: true });
  const stream = topic && streamInfoOf(topic);
  if (!stream) throw notFound();
  if (stream.softDeleted) throw gone();
  await removeStream(c.env, stream);
  return streamResponse(null, 204, {});
}
