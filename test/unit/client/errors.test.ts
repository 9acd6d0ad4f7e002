import { describe, expect, it } from "vitest";
import { isRetriable, isTributaryError, Tributary, TributaryError } from "../../../src/client/index.ts";
import { errorFromResponse } from "../../../src/client/errors.ts";
import { fakeClient } from "./support/client.ts";

const apiError = (status: number, error: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error }), { status, headers: { "content-type": "application/json", ...headers } });

describe("errorFromResponse", () => {
  it("rebuilds API.md's code, message and data", async () => {
    const error = await errorFromResponse(
      apiError(416, { code: "OFFSET_OUT_OF_RANGE", message: "offset 99 is out of range", logStartOffset: 3, highWatermark: 42 }),
    );
    expect(error).toBeInstanceOf(TributaryError);
    expect({ code: error.code, message: error.message, data: error.data, status: error.status, retriable: error.retriable }).toEqual({
      code: "OFFSET_OUT_OF_RANGE",
      message: "offset 99 is out of range",
      data: { logStartOffset: 3, highWatermark: 42 },
      status: 416,
      retriable: false,
    });
  });

  it("marks 429 and 503 codes retriable and keeps Retry-After as data.retryAfterMs", async () => {
    const error = await errorFromResponse(apiError(503, { code: "NOT_ENOUGH_REPLICAS", message: "isr" }, { "retry-after": "2" }));
    expect(isRetriable(error)).toBe(true);
    expect(error.data.retryAfterMs).toBe(2_000);
    const throttled = await errorFromResponse(apiError(429, { code: "THROTTLING_QUOTA_EXCEEDED", message: "slow down" }));
    expect(throttled.retriable).toBe(true);
  });

  it("classifies an answer without an API error body by its status", async () => {
    const gateway = await errorFromResponse(new Response("<html>Bad gateway</html>", { status: 502 }));
    expect(gateway.code).toBe("REQUEST_TIMED_OUT");
    expect(gateway.retriable).toBe(true);
    expect(gateway.message).toContain("<html>Bad gateway</html>");
    expect(gateway.data.status).toBe(502);
    const teapot = await errorFromResponse(new Response("", { status: 418 }));
    expect(teapot.code).toBe("UNKNOWN_SERVER_ERROR");
  });

  it("keeps a code this client does not know as data.serverCode", async () => {
    const error = await errorFromResponse(apiError(409, { code: "SOMETHING_NEW", message: "from a newer server" }));
    expect(error.code).toBe("UNKNOWN_SERVER_ERROR");
    expect(error.data.serverCode).toBe("SOMETHING_NEW");
    expect(error.message).toContain("from a newer server");
  });
});

describe("errors through the client", () => {
  it("a request whose connection failed is a retriable NETWORK_EXCEPTION (outage.test.ts has the reasons)", async () => {
    const client = new Tributary({ url: "http://127.0.0.1:9", fetch: async () => { throw new TypeError("fetch failed"); }, retry: { retries: 0 } });
    const error = await client.admin().topics.list().catch((e: unknown) => e);
    expect(isTributaryError(error, "NETWORK_EXCEPTION")).toBe(true);
    expect((error as TributaryError).retriable).toBe(true);
    expect((error as TributaryError).message).toContain("GET /v1/topics");
  });

  it("a request timeout is REQUEST_TIMED_OUT too", async () => {
    const never = (request: Request) =>
      new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
    const client = new Tributary({ url: "http://tributary.test", fetch: never, requestTimeoutMs: 20, retry: { retries: 0 } });
    const error = await client.admin().topics.list().catch((e: unknown) => e);
    expect(isTributaryError(error, "REQUEST_TIMED_OUT")).toBe(true);
  });

  it("isTributaryError narrows to one code with its data typed", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const error = await client.topic("orders").fetch(0, 5).catch((e: unknown) => e);
    if (!isTributaryError(error, "OFFSET_OUT_OF_RANGE")) throw new Error(`expected OFFSET_OUT_OF_RANGE, got ${String(error)}`);
    const { logStartOffset, highWatermark } = error.data;
    expect({ logStartOffset, highWatermark }).toEqual({ logStartOffset: 0, highWatermark: 0 });
    expect(isTributaryError(error, "UNKNOWN_TOPIC_OR_PARTITION")).toBe(false);
    expect(isTributaryError(new Error("x"))).toBe(false);
  });

  it("the caller's own abort stays an abort, not a retriable error", async () => {
    const { server, client } = fakeClient();
    server.createTopic("orders", 1);
    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    await expect(client.topic("orders").fetch(0, 0, { signal: controller.signal })).rejects.toThrow("caller gave up");
  });
});
