import { TributaryError } from "../errors.ts";
import { topicNameLengthMax } from "../limits.ts";

const legalTopicName = /^[a-zA-Z0-9._-]+$/;

/** Kafka's topic name rules: 1–249 characters of [a-zA-Z0-9._-], not "." or "..". */
export function checkTopicName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0) {
    throw new TributaryError("INVALID_TOPIC_EXCEPTION", "a topic name is a non-empty string");
  }
  if (name.length > topicNameLengthMax) {
    throw new TributaryError("INVALID_TOPIC_EXCEPTION", `a topic name has at most ${topicNameLengthMax} characters`);
  }
  if (name === "." || name === ".." || !legalTopicName.test(name)) {
    throw new TributaryError(
      "INVALID_TOPIC_EXCEPTION",
      `topic name ${JSON.stringify(name)} is not legal: use [a-zA-Z0-9._-], not "." or ".."`,
    );
  }
  return name;
}
