import { describe, expect, it } from "vitest";
import { api } from "../support/http.ts";
describe("smoke", () => {
  it("health", async () => {
    const r = await api("GET", "/v1/health");
    expect(r.body).toEqual({ status: "ok" });
  });
});
