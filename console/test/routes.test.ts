import { describe, expect, it } from "vitest";
import { parseRoute, routeHref } from "../src/routes.ts";

describe("console routes", () => {
  it("names each page by the hash, and a topic or group name round-trips whatever its characters", () => {
    expect(parseRoute("")).toEqual({ page: "topics" });
    expect(parseRoute("#/groups")).toEqual({ page: "groups" });
    expect(parseRoute("#/cluster")).toEqual({ page: "cluster" });
    expect(parseRoute("#/share-groups")).toEqual({ page: "share-groups" });
    expect(parseRoute("#/subscriptions")).toEqual({ page: "subscriptions" });
    expect(parseRoute("#/schemas")).toEqual({ page: "schemas" });
    for (const name of ["orders", "a/b", "with space", "per%cent", "ünï"]) {
      expect(parseRoute(routeHref({ page: "topic", topic: name }))).toEqual({ page: "topic", topic: name });
      expect(parseRoute(routeHref({ page: "messages", topic: name }))).toEqual({ page: "messages", topic: name });
      expect(parseRoute(routeHref({ page: "group", group: name }))).toEqual({ page: "group", group: name });
      expect(parseRoute(routeHref({ page: "share-group", group: name }))).toEqual({ page: "share-group", group: name });
      expect(parseRoute(routeHref({ page: "subscription", name }))).toEqual({ page: "subscription", name });
      expect(parseRoute(routeHref({ page: "schema-subject", subject: name }))).toEqual({ page: "schema-subject", subject: name });
    }
    expect(parseRoute("#/topics/a/b/c")).toEqual({ page: "not-found", hash: "#/topics/a/b/c" });
    expect(parseRoute("#/nothing")).toEqual({ page: "not-found", hash: "#/nothing" });
  });
});
