/** Helpers of the storage tests: produce through backpressure, and wait for the cleaner. */
import { expect } from "vitest";
import { api } from "../support/http.ts";

/** Produces, retrying a retriable BROKER_BUSY (backpressure while sealing catches up) as a client does. */
export async function produceRetrying(topic: string, body: unknown): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await api("POST", `/v1/topics/${topic}/records`, body);
    if (response.status === 200) return;
    expect(response.body?.error?.code, response.text).toBe("BROKER_BUSY");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("produce stayed busy");
}

/** Waits (bounded) until `check` holds: the leader's alarm seals and cleans in the background. */
export async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100 && !(await check()); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await check()).toBe(true);
}
