/**
 * A WebSocket subscriber for the workers layer: opens `GET …/records` with `Upgrade:
 * websocket` through the Worker's own fetch handler and keeps every frame and the close.
 * Waiting is event-driven (no sleeps); the test's timeout bounds a wait that never ends.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { concatBytes } from "../../../src/protocol/bytes.ts";
import { baseUrl, readResponse, type ApiResponse } from "../support/http.ts";

export const recordBatchSubprotocol = "tributary.record-batch";

export interface JsonFrame {
  records?: { offset: number; value: string | null; key: string | null; timestamp: number; headers: Record<string, string | null> }[];
  nextOffset?: number;
  highWatermark?: number;
  logStartOffset?: number;
  error?: { code: string; message: string };
}

export class Subscriber {
  readonly socket: WebSocket;
  readonly frames: (string | ArrayBuffer)[] = [];
  closed: { code: number; reason: string } | undefined;
  #changed: (() => void)[] = [];

  constructor(socket: WebSocket) {
    this.socket = socket;
    (socket as { binaryType?: string }).binaryType = "arraybuffer";
    socket.accept();
    socket.addEventListener("message", (event) => {
      this.frames.push(event.data as string | ArrayBuffer);
      this.#notify();
    });
    socket.addEventListener("close", (event) => {
      this.closed = { code: event.code, reason: event.reason };
      this.#notify();
    });
  }

  #notify(): void {
    for (const wake of this.#changed.splice(0)) wake();
  }

  /** Resolves once `check` holds, re-checked at each frame or close. */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.#changed.push(resolve));
  }

  jsonFrames(): JsonFrame[] {
    return this.frames.filter((frame): frame is string => typeof frame === "string").map((frame) => JSON.parse(frame) as JsonFrame);
  }

  /** Every record's value received so far in JSON frames. */
  values(): (string | null)[] {
    return this.jsonFrames().flatMap((frame) => frame.records?.map((record) => record.value) ?? []);
  }

  binaryBytes(): Uint8Array {
    return concatBytes(this.frames.filter((frame): frame is ArrayBuffer => typeof frame !== "string").map((frame) => new Uint8Array(frame)));
  }

  /** Returns credit for every frame received so far (its bytes), once. */
  #credited = 0;
  returnCredit(): void {
    let bytes = 0;
    for (const frame of this.frames.slice(this.#credited)) bytes += typeof frame === "string" ? new TextEncoder().encode(frame).byteLength : frame.byteLength;
    this.#credited = this.frames.length;
    if (bytes > 0) this.socket.send(JSON.stringify({ credit: bytes }));
  }

  async closedWith(): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closed !== undefined);
    return this.closed!;
  }
}

/** Opens a subscription; a refusal comes back as the JSON error response. */
export async function subscribe(
  topic: string,
  partition: number,
  query: string,
  headers: Record<string, string> = {},
): Promise<{ subscriber: Subscriber; response: Response } | { subscriber: undefined; refusal: ApiResponse }> {
  const request = new Request(`${baseUrl}/v1/topics/${topic}/partitions/${partition}/records${query}`, { headers: { Upgrade: "websocket", ...headers } });
  const response = await exports.default.fetch(request);
  if (response.status === 101 && response.webSocket) return { subscriber: new Subscriber(response.webSocket), response };
  return { subscriber: undefined, refusal: await readResponse(response) };
}

export async function open(topic: string, partition: number, query: string, headers: Record<string, string> = {}): Promise<Subscriber> {
  const opened = await subscribe(topic, partition, query, headers);
  expect(opened.subscriber, opened.subscriber ? "" : opened.refusal.text).toBeDefined();
  return opened.subscriber!;
}
