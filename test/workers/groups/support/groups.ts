/**
 * Helpers for the consumer-group workers tests: every call goes through the Worker's fetch
 * handler (test/workers/support/http.ts), as a client would make it.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { groupStub } from "../../../../src/contracts/stubs.ts";
import { api, createTopic, uniqueTopic, type ApiResponse } from "../../support/http.ts";

export interface Assignment {
  topic: string;
  partitions: number[];
}

export interface Position {
  topic: string;
  partition: number;
  offset: number;
}

export interface PolledRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface PollAnswer {
  memberEpoch: number;
  assignment: Assignment[];
  heartbeatIntervalMs: number;
  records: PolledRecord[];
  positions: Position[];
}

export interface Joined {
  memberId: string;
  memberEpoch: number;
  assignment: Assignment[];
  heartbeatIntervalMs: number;
}

/** A unique group name per call: tests in one file share storage. */
let counter = 0;
export function uniqueGroup(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A new topic with this many partitions. */
export async function topicWith(partitions: number, prefix = "members"): Promise<string> {
  const topic = uniqueTopic(prefix);
  await createTopic(topic, { partitions });
  return topic;
}

export function groupPath(group: string, rest = ""): string {
  return `/v1/groups/${encodeURIComponent(group)}${rest}`;
}

export function joinRaw(group: string, body: unknown): Promise<ApiResponse<Joined>> {
  return api<Joined>("POST", groupPath(group, "/members"), body);
}

/** Joins and asserts 201. */
export async function join(group: string, topics: string[], options: Record<string, unknown> = {}): Promise<Joined> {
  const response = await joinRaw(group, { topics, ...options });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export function heartbeatRaw(group: string, memberId: string, body: unknown) {
  return api<Omit<Joined, "memberId">>("POST", groupPath(group, `/members/${memberId}/heartbeat`), body);
}

export async function heartbeat(group: string, memberId: string, body: Record<string, unknown>) {
  const response = await heartbeatRaw(group, memberId, body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export function pollRaw(group: string, memberId: string, body: unknown): Promise<ApiResponse<PollAnswer>> {
  return api<PollAnswer>("POST", groupPath(group, `/members/${memberId}/poll`), body);
}

export async function poll(group: string, memberId: string, body: Record<string, unknown>): Promise<PollAnswer> {
  const response = await pollRaw(group, memberId, body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function leave(group: string, memberId: string): Promise<void> {
  const response = await api("DELETE", groupPath(group, `/members/${memberId}`));
  expect(response.status, response.text).toBe(204);
}

export function commitRaw(group: string, body: unknown) {
  return api("POST", groupPath(group, "/offsets"), body);
}

export interface GroupOffsetEntry {
  topic: string;
  partition: number;
  offset: number | null;
  metadata: string | null;
  leaderEpoch?: number;
  highWatermark: number;
  lag: number | null;
}

export async function groupOffsets(group: string): Promise<GroupOffsetEntry[]> {
  const response = await api<{ offsets: GroupOffsetEntry[] }>("GET", groupPath(group, "/offsets"));
  expect(response.status, response.text).toBe(200);
  return response.body.offsets;
}

export interface GroupDescription {
  group: string;
  state: string;
  assignor: string;
  members: {
    memberId: string;
    memberEpoch: number;
    assignment: Assignment[];
    clientId: string | null;
    host: string | null;
    lastHeartbeatAt: number;
    sessionTimeoutMs: number;
    groupInstanceId?: string | null;
  }[];
  classic?: { state: string; generationId: number; protocolType: string | null; protocolName: string | null; leader: string | null };
}

export async function describeGroup(group: string): Promise<GroupDescription> {
  const response = await api<GroupDescription>("GET", groupPath(group));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export function coordinator(group: string) {
  return groupStub(env, group);
}

/** Partition numbers of one topic in an assignment. */
export function partitionsOf(assignment: readonly Assignment[], topic: string): number[] {
  return assignment.find((entry) => entry.topic === topic)?.partitions ?? [];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A member that polls the way a client library would: it sends back the positions of its
 * last answer (so they are committed) and its epoch, and keeps what it received.
 */
export class PollingMember {
  readonly received: PolledRecord[] = [];
  memberEpoch: number;
  positions: Position[] | undefined;
  assignment: Assignment[];

  readonly group: string;
  readonly memberId: string;

  constructor(group: string, memberId: string, joined: Joined) {
    this.group = group;
    this.memberId = memberId;
    this.memberEpoch = joined.memberEpoch;
    this.assignment = joined.assignment;
  }

  static async join(group: string, topics: string[], options: Record<string, unknown> = {}): Promise<PollingMember> {
    const joined = await join(group, topics, options);
    return new PollingMember(group, joined.memberId, joined);
  }

  async poll(extra: Record<string, unknown> = {}): Promise<PollAnswer> {
    const body: Record<string, unknown> = { memberEpoch: this.memberEpoch, ...extra };
    if (this.positions !== undefined) body.positions = this.positions;
    const answer = await poll(this.group, this.memberId, body);
    this.memberEpoch = answer.memberEpoch;
    this.assignment = answer.assignment;
    this.positions = answer.positions;
    this.received.push(...answer.records);
    return answer;
  }
}
