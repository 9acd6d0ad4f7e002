// docs/testing.md's node:test recipe, run with `node --test` in the scratch project.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTributary } from "tributary/testing";

let tributary;
before(async () => {
  tributary = await startTributary();
});
after(() => tributary.dispose());

test("health, and a topic through the client", async () => {
  const response = await tributary.fetch("/v1/health");
  assert.equal(response.status, 200);
  await tributary.client.admin().topics.create({ name: "from-node-test", partitions: 1 });
  assert.deepEqual((await tributary.client.admin().topics.list()).map((topic) => topic.name), ["from-node-test"]);
});
