/**
 * A stream's lifecycle as the controller keeps it (src/objects/stream-lifecycle.ts): fork
 * counts that concurrent creations and deletions never miscount, and expired streams swept
 * by the controller's alarm without any request finding them (docs/durable-streams.md).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { controllerStub } from "../../../src/contracts/stubs.ts";
import { api } from "../support/http.ts";
import { ds, plain, uniquePath } from "./support/stream-calls.ts";


async function configs(path: string): Promise<Record<string, string> | undefined> {
  const described = await api("GET", `/v1/topics/${streamTopicName(path)}`);
  return described.status === 200 ? described.body.configs : undefined;
}

async function listed(path: string): Promise<boolean> {
  const names = (await api("GET", "/v1/topics")).body.topics.map((topic: { name: string }) => topic.name);
  return names.includes(streamTopicName(path));
}

const controller = () => controllerStub(env);
const controllerAlarm = () => runInDurableObject(controller(), (_instance, state) => state.storage.getAlarm());

describe("fork counts", () => {
  it("count every one of N forks created at once, and N deleted at once remove the deleted source", async () => {
    const forks = 8;
    const source = uniquePath("count-src");
    await ds("PUT", source, { headers: plain, body: "s" });
    const paths = Array.from({ length: forks }, (_, index) => uniquePath(`count-fork${index}`));
    const created = await Promise.all(paths.map((path) => ds("PUT", path, { headers: { "stream-forked-from": source } })));
    expect(created.map((answer) => answer.status)).toEqual(paths.map(() => 201));
    expect((await configs(source))?.["ds.fork.refs"]).toBe(String(forks));

    expect((await ds("DELETE", source)).status).toBe(204);
    expect((await ds("GET", source)).status).toBe(410);
    // All but one deleted at once: the source still counts the one left, and stays 410.
    const deleted = await Promise.all(paths.slice(1).map((path) => ds("DELETE", path)));
    expect(deleted.map((answer) => answer.status)).toEqual(paths.slice(1).map(() => 204));
    expect((await configs(source))?.["ds.fork.refs"]).toBe("1");
    expect((await ds("HEAD", source)).status).toBe(410);
    expect((await ds("GET", paths[0]!)).text).toBe("s");
    expect((await ds("DELETE", paths[0]!)).status).toBe(204);
    expect(await configs(source)).toBeUndefined();
    expect((await ds("HEAD", source)).status).toBe(404);
  });

  it("creations and deletions of forks at once leave the right count", async () => {
    const source = uniquePath("mixed-src");
    await ds("PUT", source, { headers: plain, body: "s" });
    const first = Array.from({ length: 5 }, (_, index) => uniquePath(`mixed-a${index}`));
    await Promise.all(first.map((path) => ds("PUT", path, { headers: { "stream-forked-from": source } })));
    const second = Array.from({ length: 5 }, (_, index) => uniquePath(`mixed-b${index}`));
    const answers = await Promise.all([
      ...first.slice(0, 3).map((path) => ds("DELETE", path)),
      ...second.map((path) => ds("PUT", path, { headers: { "stream-forked-from": source } })),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 201, 201, 201, 201, 201]);
    expect((await configs(source))?.["ds.fork.refs"]).toBe("7");
  });
});

describe("expired streams are swept", () => {
  it("a stream past its TTL leaves the topic listing without any request to it", async () => {
    const path = uniquePath("swept");
    const created = await ds("PUT", path, { headers: { ...plain, "stream-ttl": "1" }, body: "x" });
    expect(created.status).toBe(201);
    const expiresAtMs = Number((await configs(path))!["ds.expires.at.ms"]);
    const alarm = await controllerAlarm();
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(expiresAtMs);
    expect(await listed(path)).toBe(true);
    // The TTL itself has to pass (the controller compares with its clock); then the alarm runs.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAtMs - Date.now()) + 50));
    await runDurableObjectAlarm(controller());
    expect(await listed(path)).toBe(false);
    expect((await ds("HEAD", path)).status).toBe(404);
  });

  it("an expiring source with living forks is only marked deleted; a stream without expiry arms no alarm", async () => {
    const source = uniquePath("swept-src");
    const fork = uniquePath("swept-fork");
    await ds("PUT", source, { headers: { ...plain, "stream-ttl": "1" }, body: "x" });
    await ds("PUT", fork, { headers: { "stream-forked-from": source, "stream-ttl": "3600" } });
    const expiresAtMs = Number((await configs(source))!["ds.expires.at.ms"]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAtMs - Date.now()) + 50));
    await runDurableObjectAlarm(controller());
    expect((await configs(source))?.["ds.deleted"]).toBe("1");
    expect((await ds("GET", source)).status).toBe(410);
    // The fork's expiry (an hour) is still ahead: the alarm is re-armed by then, and not for now.
    const rearmed = await controllerAlarm();
    expect(rearmed).not.toBeNull();
    expect(rearmed! > Date.now() && rearmed! <= Number((await configs(fork))!["ds.expires.at.ms"])).toBe(true);
    await runInDurableObject(controller(), (_instance, state) => state.storage.deleteAlarm());
    const plainStream = uniquePath("no-expiry");
    await ds("PUT", plainStream, { headers: plain, body: "x" });
    await ds("POST", plainStream, { headers: plain, body: "y" });
    expect(await controllerAlarm()).toBeNull();
    expect((await ds("DELETE", fork)).status).toBe(204);
    expect(await configs(source)).toBeUndefined();
  });
});
