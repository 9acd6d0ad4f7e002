// The user's Worker under @cloudflare/vitest-plugin, Tributary an auxiliary Worker bound to it.
import { env, exports } from "cloudflare:workers";
import { expect, it } from "vitest";

it("produces a click to Tributary over the service binding", async () => {
  expect((await env.TRIBUTARY.createTopic({ name: "clicks", partitions: 1 })).ok).toBe(true);
  const response = await exports.default.fetch("https://app.example/buy");
  expect(response.status).toBe(200);
  const fetched = await env.TRIBUTARY.fetchRecords("clicks", 0, { offset: 0 });
  expect(fetched.value.records.map((record) => record.value)).toEqual(["/buy"]);
});
