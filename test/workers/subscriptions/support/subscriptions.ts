/**
 * Helpers for push subscriptions' workers tests: create and describe through the API, read what
 * the PUSH_TARGET Worker received (support/push-target.js), wait for a condition (bounded).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { api } from "../../support/http.ts";

export interface ReceivedRecord {
  partition: number;
  offset: number;
  value: string;
  key: string | null;
  headers: Record<string, string>;
  deliveryCount: number;
}

export interface ReceivedBatch {
  subscription: string;
  topic: string;
  records: ReceivedRecord[];
}

interface PushTarget {
  received(subscription: string): Promise<ReceivedBatch[]>;
}

export function received(subscription: string): Promise<ReceivedBatch[]> {
  return (env as unknown as { PUSH_TARGET: PushTarget }).PUSH_TARGET.received(subscription);
}

let sequence = 0;

/** A name no other test uses, with a prefix the target reacts to ("failing-", "rejecting-"). */
export function uniqueSubscription(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${sequence++}`;
}

export async function createSubscription(body: Record<string, unknown>) {
  const response = await api("POST", "/v1/subscriptions", { mode: "ordered", target: { service: "PUSH_TARGET" }, maxWaitMs: 0, ...body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export async function describeSubscription(name: string) {
  const response = await api("GET", `/v1/subscriptions/${name}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Polls `check` until it answers true, at most `attempts` times 50 ms apart; fails with `what`. */
export async function until(what: string, check: () => Promise<boolean>, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

export function offsetsOf(batches: readonly ReceivedBatch[]): number[] {
  return batches.flatMap((batch) => batch.records.map((record) => record.offset));
}

/**
 * The object's request count once no run is left (a wake's alarm may still be due just after
 * the last delivery): read until two readings half a second apart agree (bounded).
 */
export async function settledRequests(requests: () => Promise<number>): Promise<number> {
  let last = await requests();
  for (let attempt = 0; attempt < 40; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await requests();
    if (now === last) return now;
    last = now;
  }
  throw new Error("the subscription object kept serving requests");
}
