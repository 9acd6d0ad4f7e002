import { TributaryError, unwrap } from "../errors.ts";
import { metadataCacheEntriesMax, metadataCacheMsMax } from "../limits.ts";
import { controllerStub } from "../contracts/stubs.ts";
import type { TopicMetadata } from "../topics/topic-metadata.ts";

/**
 * Topic metadata cached per isolate for at most a few seconds (ARCHITECTURE.md decision 10):
 * cached, never trusted blindly — an unknown-topic or not-leader answer from a partition
 * makes the caller refresh once and retry.
 */
interface Entry {
  topic: TopicMetadata;
  fetchedAtMs: number;
}

const entries = new Map<string, Entry>();

export async function topicMetadata(env: Env, name: string, options: { refresh?: boolean } = {}): Promise<TopicMetadata> {
  const cached = entries.get(name);
  if (cached && !options.refresh && Date.now() - cached.fetchedAtMs < metadataCacheMsMax) return cached.topic;
  const topic = unwrap(await controllerStub(env).describeTopic(name));
  rememberTopic(topic);
  return topic;
}

/** Caches what the controller just answered (a change made through this isolate shows at once). */
export function rememberTopic(topic: TopicMetadata): void {
  entries.delete(topic.name);
  entries.set(topic.name, { topic, fetchedAtMs: Date.now() });
  if (entries.size > metadataCacheEntriesMax) {
    const oldest = entries.keys().next();
    if (!oldest.done) entries.delete(oldest.value);
  }
}

export function forgetTopic(name: string): void {
  entries.delete(name);
}

const staleMetadataCodes = new Set(["UNKNOWN_TOPIC_OR_PARTITION", "NOT_LEADER_OR_FOLLOWER"]);

/** True for errors after which fresh metadata may succeed: the cached view was stale. */
export function isStaleMetadataError(error: unknown): boolean {
  return error instanceof TributaryError && staleMetadataCodes.has(error.code);
}

/**
 * Runs `action` with the cached metadata of a topic; when it fails because that metadata was
 * stale, refreshes it once and runs `action` again. Only for actions that write nothing or
 * whose failure wrote nothing.
 */
export async function withTopic<T>(env: Env, name: string, action: (topic: TopicMetadata) => Promise<T>): Promise<T> {
  try {
    return await action(await topicMetadata(env, name));
  } catch (error) {
    if (!isStaleMetadataError(error)) throw error;
    return action(await topicMetadata(env, name, { refresh: true }));
  }
}
