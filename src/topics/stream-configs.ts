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
 */
export const streamConfigNames = ["ds.content.type", "ds.ttl.seconds", "ds.expires.at.ms"] as const;

export type StreamConfigName = (typeof streamConfigNames)[number];

export function isStreamConfigName(name: string): name is StreamConfigName {
  return (streamConfigNames as readonly string[]).includes(name);
}

const contentTypePattern = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/;
const wholeNumberPattern = /^(0|[1-9][0-9]{0,15})$/;

/** A `ds.*` value, checked: INVALID_CONFIG otherwise. */
export function checkStreamConfig(name: StreamConfigName, value: string): string {
  const valid = name === "ds.content.type" ? contentTypePattern.test(value) && value.includes("/") : wholeNumberPattern.test(value) && Number.isSafeInteger(Number(value));
  if (!valid) throw new TributaryError("INVALID_CONFIG", `config ${name} must be ${name === "ds.content.type" ? "a media type" : "a whole number"}, not ${JSON.stringify(value)}`);
  return value;
}
