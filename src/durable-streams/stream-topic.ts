import { TributaryError, unwrap, type Result } from "../errors.ts";
import { controllerStub } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";
import { forgetTopic, rememberTopic, topicMetadata } from "../data-plane/metadata-cache.ts";
import { StreamError } from "./stream-errors.ts";

/**
 * A stream as its topic holds it (docs/durable-streams.md, "Mapping"): a one-partition topic
 * whose `ds.*` configs (src/topics/stream-configs.ts) say its content type and lifetime.
 * A topic without `ds.content.type` is no stream; a stream past its expiry is gone (404) and
 * its topic is deleted as the request that finds it ends.
 */
export interface StreamInfo {
  topic: TopicMetadata;
  contentType: string;
  ttlSeconds?: number;
  expiresAtMs?: number;
  /** A fork: its source's topic name, and where it was forked. */
  fork?: { source: string; offset: number; subOffset: number };
  /** Deleted while forks lived: 410 until the last is deleted. */
  softDeleted: boolean;
}

export function streamInfoOf(topic: TopicMetadata): StreamInfo | undefined {
  const contentType = topic.configs["ds.content.type"];
  if (contentType === undefined || topic.partitions.length !== 1) return undefined;
  const { configs } = topic;
  const ttl = configs["ds.ttl.seconds"];
  const expires = configs["ds.expires.at.ms"];
  const source = configs["ds.forked.from"];
  return {
    topic,
    contentType,
    ...(ttl === undefined ? {} : { ttlSeconds: Number(ttl) }),
    ...(expires === undefined ? {} : { expiresAtMs: Number(expires) }),
    ...(source === undefined ? {} : { fork: { source, offset: Number(configs["ds.fork.offset"] ?? 0), subOffset: Number(configs["ds.fork.sub.offset"] ?? 0) } }),
    softDeleted: configs["ds.deleted"] === "1",
  };
}

export function isExpired(stream: StreamInfo, nowMs: number): boolean {
  return stream.expiresAtMs !== undefined && nowMs >= stream.expiresAtMs;
}

export function notFound(): StreamError {
  return new StreamError(404, "no stream at this path");
}

/** Deletes an expired stream (as DELETE would), if it is still the same topic and expired (a recreated or extended one stays). */
export async function deleteExpired(env: Env, stream: StreamInfo): Promise<void> {
  forgetTopic(stream.topic.name);
  if (stream.fork) forgetTopic(stream.fork.source);
  removed(await controllerStub(env).removeStream(stream.topic.name, stream.topic.topicId, { ifExpired: true }));
}

/**
 * The controller's answer to a removal: its name is free even when deleting the data continues
 * in the background. Every stream it changed — up a chain of forks, a source removed or its
 * count lowered — is forgotten here, so this isolate answers their new state at once.
 */
function removed(result: Result<string[]>): void {
  if (result.ok) for (const name of result.value) forgetTopic(name);
  else if (result.error.code !== "REQUEST_TIMED_OUT") unwrap(result);
}

/** Sets `ds.*` configs of a stream's topic, and caches what the controller answers. */
export async function alterStream(env: Env, stream: StreamInfo, configs: Record<string, string>): Promise<void> {
  const altered = await controllerStub(env).alterTopicConfigs(stream.topic.name, configs);
  if (altered.ok && altered.value.topicId === stream.topic.topicId) rememberTopic(altered.value);
}

/**
 * Deletes a stream (DELETE). One with living forks is only marked deleted (410 from then on)
 * until its last fork goes; a fork's deletion releases its source, which goes too when it was
 * marked and this was its last fork — and so on up a chain of forks. The controller does it
 * all in one turn (src/objects/stream-lifecycle.ts), so concurrent deletions count right.
 */
export async function removeStream(env: Env, stream: StreamInfo): Promise<void> {
  forgetTopic(stream.topic.name);
  if (stream.fork) forgetTopic(stream.fork.source);
  removed(await controllerStub(env).removeStream(stream.topic.name, stream.topic.topicId));
}

export function gone(): StreamError {
  return new StreamError(410, "this stream was deleted; forks of it still live");
}

/** The topic as a stream, or undefined when there is none (no topic, or a topic that is no stream). */
export async function findStreamTopic(env: Env, name: string, options: { refresh?: boolean } = {}): Promise<TopicMetadata | undefined> {
  try {
    return await topicMetadata(env, name, options);
  } catch (error) {
    if (error instanceof TributaryError && error.code === "UNKNOWN_TOPIC_OR_PARTITION") return undefined;
    throw error;
  }
}

/**
 * A Stream-TTL is a sliding window (docs/durable-streams.md, "Lifetime"): a read or an append
 * moves the expiry to TTL seconds from now. Written to the topic's `ds.expires.at.ms` only when
 * that moves it by a tenth of the TTL or more (at least a second), so a busy stream costs the
 * controller one write per tenth of its TTL, not one per request.
 */
async function extendLifetime(env: Env, stream: StreamInfo, nowMs: number): Promise<void> {
  if (stream.ttlSeconds === undefined || stream.expiresAtMs === undefined) return;
  const expiresAtMs = nowMs + stream.ttlSeconds * 1000;
  if (expiresAtMs - stream.expiresAtMs < Math.max(1000, stream.ttlSeconds * 100)) return;
  await alterStream(env, stream, { "ds.expires.at.ms": String(expiresAtMs) });
}

/**
 * The live stream at a topic name, or 404: none, not a stream, or expired — checked again on
 * fresh metadata (another isolate may have extended it), then its topic is deleted once the
 * answer is sent (`waitUntil`). `access`: a read or an append, which extends a Stream-TTL.
 */
export async function liveStream(env: Env, name: string, waitUntil: (promise: Promise<unknown>) => void, access = true): Promise<StreamInfo> {
  let topic = await findStreamTopic(env, name);
  let stream = topic && streamInfoOf(topic);
  if (stream && isExpired(stream, Date.now())) {
    topic = await findStreamTopic(env, name, { refresh: true });
    stream = topic && streamInfoOf(topic);
  }
  if (!stream) throw notFound();
  if (stream.softDeleted) throw gone();
  const nowMs = Date.now();
  if (isExpired(stream, nowMs)) {
    const expired = stream;
    waitUntil(deleteExpired(env, expired).catch(() => undefined));
    throw notFound();
  }
  if (access) waitUntil(extendLifetime(env, stream, nowMs).catch(() => undefined));
  return stream;
}
