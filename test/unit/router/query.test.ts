import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { allowedMethodsOf } from "../../../src/router/allowed-methods.ts";
import { offsetAtParam, routeQuery } from "../../../src/router/query.ts";

function refusal(run: () => unknown): { code: string; message: string; data: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    if (error instanceof TributaryError) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error("not refused");
}

describe("routeQuery", () => {
  it("answers the parameters the route takes, decoded", () => {
    expect(routeQuery("http://h/v1/x?offset=3&encoding=base64", ["offset", "encoding", "waitMs"])).toEqual({ offset: "3", encoding: "base64" });
    expect(routeQuery("http://h/v1/x", [])).toEqual({});
    expect(routeQuery("http://h/v1/x?", [])).toEqual({});
    expect(routeQuery("http://h/v1/x?at=a%20b", ["at"])).toEqual({ at: "a b" });
  });

  it("refuses a parameter the route does not take with 400 INVALID_REQUEST naming it, and the route's own", () => {
    const refused = refusal(() => routeQuery("http://h/v1/x?acks=1", [], "; acks goes in the JSON body"));
    expect(refused).toEqual({
      code: "INVALID_REQUEST",
      message: 'unknown query parameter "acks": this route takes no query parameters; acks goes in the JSON body',
      data: { parameter: "acks" },
    });
    expect(refusal(() => routeQuery("http://h/v1/x?offset=0&maxRecord=5", ["offset", "maxRecords"])).message).toBe(
      'unknown query parameter "maxRecord": this route takes only offset, maxRecords',
    );
    expect(refusal(() => routeQuery("http://h/v1/x?__proto__=1", ["at"])).data).toEqual({ parameter: "__proto__" });
    expect(refusal(() => routeQuery(`http://h/v1/x?${"n".repeat(5000)}=1`, [])).message.length).toBeLessThan(200);
  });

  it("refuses a parameter given twice", () => {
    expect(refusal(() => routeQuery("http://h/v1/x?acks=1&acks=all", ["acks"]))).toMatchObject({ code: "INVALID_REQUEST", data: { parameter: "acks" } });
  });
});

describe("offsetAtParam", () => {
  it("takes earliest, latest or a timestamp in milliseconds", () => {
    expect(offsetAtParam("earliest")).toBe("earliest");
    expect(offsetAtParam("latest")).toBe("latest");
    expect(offsetAtParam("1764673200000")).toEqual({ timestampMs: 1764673200000 });
    expect(offsetAtParam("0")).toEqual({ timestampMs: 0 });
    expect([offsetAtParam("max-timestamp"), offsetAtParam("earliest-local")]).toEqual(["max-timestamp", "earliest-local"]);
  });

  it("takes epoch-end with its leader epoch, and a leader epoch with nothing else", () => {
    expect(offsetAtParam("epoch-end", "3")).toEqual({ epochEnd: 3 });
    for (const epoch of [undefined, "-1", "x", "2147483648"]) expect(refusal(() => offsetAtParam("epoch-end", epoch)).code).toBe("INVALID_REQUEST");
    expect(refusal(() => offsetAtParam("latest", "0")).message).toMatch(/leaderEpoch is taken only with at=epoch-end/);
  });

  it.each(["yesterday", "-1", "1.5", "9007199254740993", "EARLIEST"])("refuses %s naming every form at takes", (text) => {
    const refused = refusal(() => offsetAtParam(text));
    expect(refused.code).toBe("INVALID_REQUEST");
    expect(refused.message).toMatch(/^at must be earliest, latest, max-timestamp, earliest-local, latest-tiered, earliest-pending-upload, epoch-end or a timestamp in milliseconds/);
  });

  it("says at is required when it is missing", () => {
    expect(refusal(() => offsetAtParam(undefined)).message).toMatch(/^at is required: earliest, latest, max-timestamp, earliest-local, latest-tiered, earliest-pending-upload, epoch-end or a timestamp/);
  });
});

describe("allowedMethodsOf", () => {
  const allowed = allowedMethodsOf([
    { method: "ALL", path: "/v1/*" },
    { method: "GET", path: "/v1/health" },
    { method: "GET", path: "/v1/topics" },
    { method: "POST", path: "/v1/topics" },
    { method: "DELETE", path: "/v1/topics/:topic" },
    { method: "GET", path: "/v1/topics/:topic" },
    { method: "POST", path: "/v1/topics/:topic/partitions/:partition/records" },
    { method: "GET", path: "/v1/topics/:topic/partitions/:partition/records" },
    { method: "GET", path: "/v1/topics/:topic/partitions/:partition/records" },
  ]);

  it("lists the methods a path is served with, in a fixed order, HEAD with GET and OPTIONS under /v1", () => {
    expect(allowed("/v1/topics")).toEqual(["GET", "HEAD", "POST", "OPTIONS"]);
    expect(allowed("/v1/topics/orders")).toEqual(["GET", "HEAD", "DELETE", "OPTIONS"]);
    expect(allowed("/v1/topics/orders/partitions/0/records")).toEqual(["GET", "HEAD", "POST", "OPTIONS"]);
  });

  it("lists nothing for a path no route serves (middleware serves none)", () => {
    expect(allowed("/v1/nothing")).toEqual([]);
    expect(allowed("/v1/topics/a/b")).toEqual([]);
    expect(allowed("/v1/topics/")).toEqual([]);
    expect(allowed("/")).toEqual([]);
  });
});
