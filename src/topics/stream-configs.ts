import { TributaryError } from "../errors.ts";

/**
 * The configs of a Durable Streams stream's topic (docs/durable-streams.md): a Tributary
 * family, `ds.*`, set when the protocol creates the stream and shown by describe like any
 * explicit config. They have no defaults: a topic without them is no stream.
 *
 * - `ds.content.type`: the stream's content type, as given on creation.
 * - `ds.ttl.seconds`: the Stream-TTL given on creation, if one was.
 * - `ds.expires.at.ms`: when the stream expires (ms since the epoch): creation + TTL, or the
 *   given Stream-Expires-At.
 * - `ds.forked.from`, `ds.fork.offset`, `ds.fork.sub.offset`: a fork's source topic and where
 *   it was forked (its records up to there were copied when the fork was created).
 * - `ds.fork.refs`: how many forks of this stream live; `ds.deleted`: `1` once the stream was
 *   deleted while forks of it lived (it answers 410 until the last of them is deleted).
 */
export const streamConfigNames = [
  "ds.content.type",
  "ds.ttl.seconds",
  "ds.expires.at.ms",
  "ds.forked.from",
  "ds.fork.offset",
  "ds.fork.sub.offset",
  "ds.fork.refs",
  "ds.deleted",
] as const;

export type StreamConfigName = (typeof streamConfigNames)[number];

export function isStreamConfigName(name: string): name is StreamConfigName {
  return (streamConfigNames as readonly string[]).includes(name);
}

const contentTypePattern = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/;
const wholeNumberPattern = /^(0|[1-9][0-9]{0,15})$/;
const streamTopicPattern = /^ds\.[A-Za-z0-9_-]{1,246}$/;

/** A `ds.*` value, checked: INVALID_CONFIG otherwise. */
export function checkStreamConfig(name: StreamConfigName, value: string): string {
  const [valid, expected] =
    name === "ds.content.type"
      ? [contentTypePattern.test(value) && value.includes("/"), "a media type"]
      : name === "ds.forked.from"
        ? [streamTopicPattern.test(value), "a stream's topic name"]
        : [wholeNumberPattern.test(value) && Number.isSafeInteger(Number(value)), "a whole number"];
  if (!valid) throw new TributaryError("INVALID_CONFIG", `config ${name} must be ${expected}, not ${JSON.stringify(value)}`);
  return value;
}
