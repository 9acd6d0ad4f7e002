/** Answers that say the gateway's picture of a topic is stale: its listing is asked for again. */
import { TributaryError } from "../../errors.ts";

export function isStaleMetadata(error: unknown): boolean {
  return error instanceof TributaryError && (error.code === "UNKNOWN_TOPIC_OR_PARTITION" || error.code === "NOT_LEADER_OR_FOLLOWER");
}
