import { TributaryError } from "../errors.ts";
import type { PartitionPlacement } from "./topic-metadata.ts";

/** The Durable Object location hints a replica can be placed in. */
export const knownRegions = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;

export const defaultRegions = ["wnam", "enam", "weur", "apac", "oc"];

/** The configured region list (the REGIONS variable, comma-separated); the default when unset. */
export function parseRegions(value: string | undefined): string[] {
  if (value === undefined || value.trim() === "") return [...defaultRegions];
  const regions = value.split(",").map((region) => region.trim()).filter((region) => region !== "");
  const unknown = regions.filter((region) => !(knownRegions as readonly string[]).includes(region));
  if (unknown.length > 0 || new Set(regions).size !== regions.length || regions.length === 0) {
    throw new TributaryError(
      "UNKNOWN_SERVER_ERROR",
      `REGIONS must list distinct regions of ${knownRegions.join(", ")}; got "${value}"`,
    );
  }
  return regions;
}

/** A small stable hash of the topic id, so that different topics start their leaders in different regions. */
function spreadSeed(topicId: string): number {
  let hash = 0;
  for (let index = 0; index < topicId.length; index++) hash = (Math.imul(hash, 31) + topicId.charCodeAt(index)) | 0;
  return hash >>> 0;
}

/**
 * Places partitions `from` (inclusive) to `to` (exclusive): each partition's replicas in
 * distinct regions, leaders spread round-robin over the regions, starting at a per-topic
 * point so that partition 0 of every topic does not land in the same region.
 */
export function placePartitions(
  topicId: string,
  from: number,
  to: number,
  replicationFactor: number,
  regions: readonly string[],
): PartitionPlacement[] {
  if (replicationFactor > regions.length) {
    throw new TributaryError(
      "INVALID_REPLICATION_FACTOR",
      `replication factor ${replicationFactor} needs as many regions; ${regions.length} are configured`,
    );
  }
  const seed = spreadSeed(topicId);
  const placements: PartitionPlacement[] = [];
  for (let partition = from; partition < to; partition++) {
    const replicas: string[] = [];
    for (let index = 0; index < replicationFactor; index++) {
      replicas.push(regions[(seed + partition + index) % regions.length]!);
    }
    placements.push({ partition, leader: replicas[0]!, replicas, isr: [...replicas], leaderEpoch: 0, partitionEpoch: 0 });
  }
  return placements;
}
