/**
 * The console's share-group and subscription pages (docs/console.md) in Debian's Chromium
 * against `wrangler dev` in open mode, with a local webhook (node:http on a free port, listed
 * in SUBSCRIPTION_ORIGINS) as the subscription's target. As for the other pages: each loads
 * with no console error or failed request and fits a 390-pixel-wide screen (screenshots in
 * test-output/console/); what they show is the API's (share-partition state, delivery counts);
 * reset, pause, resume and delete do what the API then reports; a dead-letter topic is a
 * link to its records.
 */
import { createServer, type Server } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, narrowViewport, overflowOf, watchedPage, type WatchedPage } from "./support/console-browser.ts";
import { freePort, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const topic = "jobs";
const deadLetters = "jobs-dlq";
const shareGroup = "workers";
const subscription = "jobs-push";

/** The webhook: accepts every batch, rejecting the records keyed "poison" (so they are dead-lettered). */
function webhookServer(): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const batch = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { records: { partition: number; offset: number; key: string | null }[] };
      const acknowledgements = batch.records.filter((record) => record.key === "poison").map(({ partition, offset }) => ({ partition, offset, type: "reject" }));
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ acknowledgements }));
    });
  });
}

describe("the console's share groups and subscriptions against wrangler dev", () => {
  let server: DevServer;
  let hook: Server;
  let browser: Browser;
  let watched: WatchedPage;
  let held: { lease: string; records: { partition: number; offset: number }[] } = { lease: "", records: [] };

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) };
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gave up waiting: ${what}`);
  };

  beforeAll(async () => {
    hook = webhookServer();
    const port = await freePort();
    await new Promise<void>((resolve) => hook.listen(port, "127.0.0.1", resolve));
    server = await startWranglerDev({ vars: { SUBSCRIPTION_ORIGINS: `http://127.0.0.1:${port}` } });
    expect((await call("POST", "/v1/topics", { name: topic, partitions: 2 })).status).toBe(201);
    expect((await call("POST", "/v1/topics", { name: deadLetters, partitions: 1 })).status).toBe(201);
    const records = Array.from({ length: 10 }, (_, index) => ({ key: index === 3 ? "poison" : `job-${index}`, value: `job ${index}`, partition: index % 2 }));
    expect((await call("POST", `/v1/topics/${topic}/records`, { records })).status).toBe(200);
    // The share group: from the earliest record, dead letters to jobs-dlq; one record rejected, two accepted, two held under a lock.
    const configs = { "auto.offset.reset": "earliest", "dead.letter.topic": deadLetters, "delivery.count.limit": "3", "record.lock.duration.ms": "600000" };
    expect((await call("PATCH", `/v1/share-groups/${shareGroup}/configs`, { configs })).status).toBe(200);
    const first = (await call("POST", `/v1/share-groups/${shareGroup}/fetch`, { topics: [topic], maxRecords: 3 })).body as { lease: string; records: { partition: number; offset: number }[] };
    expect(first.records).toHaveLength(3);
    const acknowledgements = first.records.map(({ partition, offset }, index) => ({ topic, partition, offsets: [offset], type: index === 0 ? "reject" : "accept" }));
    expect((await call("POST", `/v1/share-groups/${shareGroup}/acknowledge`, { lease: first.lease, acknowledgements })).status).toBe(200);
    held = (await call("POST", `/v1/share-groups/${shareGroup}/fetch`, { topics: [topic], maxRecords: 2 })).body;
    expect(held.records).toHaveLength(2);
    // The subscription: every record from the earliest, the poison one dead-lettered.
    const created = await call("POST", "/v1/subscriptions", {
      name: subscription, topic, mode: "ordered", from: "earliest", target: { url: `http://127.0.0.1:${port}/hooks/jobs`, secret: "whsec" },
      deadLetterTopic: deadLetters, retryDelayMs: 50, maxWaitMs: 50,
    });
    expect(created.status, created.text).toBe(201);
    await until("the subscription settled every record", async () => {
      const described = (await call("GET", `/v1/subscriptions/${subscription}`)).body;
      return described.delivered === 9 && described.deadLettered === 1 && described.lag === 0;
    });
    browser = await launchChromium();
    watched = await watchedPage(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  });

  const open = async (hash: string, heading: string) => {
    await watched.page.goto(`${server.url}/${hash}`);
    await watched.page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };

  const pages = [
    { name: "share-groups", hash: "#/share-groups", heading: "Share groups", ready: `role=link[name="${shareGroup}"]` },
    { name: "share-group", hash: `#/share-groups/${shareGroup}`, heading: `Share group ${shareGroup}`, ready: `[data-testid=archived-${topic}-0]` },
    { name: "subscriptions", hash: "#/subscriptions", heading: "Subscriptions", ready: `role=link[name="${subscription}"]` },
    { name: "subscription", hash: `#/subscriptions/${subscription}`, heading: `Subscription ${subscription}`, ready: "[data-testid=delivered]" },
  ];

  for (const { name, hash, heading, ready } of pages) {
    it(`loads the ${name} page with no console error or failed request, and fits a 390-pixel-wide screen`, async () => {
      watched.clearProblems();
      await open(hash, heading);
      await watched.page.locator(ready).first().waitFor();
      await expect.poll(() => watched.page.getByText(/Loading/).count()).toBe(0);
      await watched.screenshot(name);
      expect(watched.problems()).toEqual([]);
      const narrow = await watchedPage(browser, { viewport: narrowViewport });
      await narrow.page.goto(`${server.url}/${hash}`);
      await narrow.page.locator(ready).first().waitFor();
      await narrow.screenshot(`${name}-narrow`);
      expect({ page: name, ...(await overflowOf(narrow.page)) }).toEqual({ page: name, documentWidth: narrowViewport.width, windowWidth: narrowViewport.width, overflowing: [] });
      expect(narrow.problems()).toEqual([]);
      await narrow.page.context().close();
    });
  }

  it("shows the share group's share-partitions as the API describes them, and its dead-letter topic as a link to its records", async () => {
    watched.clearProblems();
    await open(`#/share-groups/${shareGroup}`, `Share group ${shareGroup}`);
    const page = watched.page;
    const described = (await call("GET", `/v1/share-groups/${shareGroup}`)).body as { partitions: { topic: string; partition: number; available: number; acquired: number; archived: number }[] };
    expect(described.partitions.reduce((sum, p) => sum + p.acquired, 0)).toBe(2);
    expect(described.partitions.reduce((sum, p) => sum + p.archived, 0)).toBe(1);
    for (const p of described.partitions) {
      for (const field of ["available", "acquired", "archived"] as const) {
        await expect.poll(() => page.getByTestId(`${field}-${p.topic}-${p.partition}`).textContent()).toBe(String(p[field]));
      }
    }
    expect(await page.getByTestId("delivery-limit").textContent()).toBe("3");
    await page.getByRole("link", { name: deadLetters }).first().click();
    await page.getByRole("heading", { level: 1, name: `Messages in ${deadLetters}` }).waitFor();
    // The share group's rejected record and the subscription's, each with the reason in its headers.
    await expect.poll(() => page.getByRole("table", { name: "Records" }).locator("tbody tr").count()).toBe(2);
    expect(await page.getByRole("table", { name: "Records" }).textContent()).toContain("rejected");
    await watched.screenshot("dead-letters");
    expect(watched.problems()).toEqual([]);
  });

  it("shows the share group's refusal to reset while records are acquired, then resets once they are released", async () => {
    await open(`#/share-groups/${shareGroup}`, `Share group ${shareGroup}`);
    const page = watched.page;
    const form = page.getByRole("form", { name: "Reset offsets" });
    await form.getByLabel("Topic", { exact: true }).fill(topic);
    await form.getByRole("combobox", { name: "To", exact: true }).selectOption("latest");
    watched.clearProblems();
    await form.getByRole("button", { name: "Reset offsets" }).click();
    await expect.poll(() => page.getByRole("alert").first().textContent()).toMatch(/^NON_EMPTY_GROUP: /);
    expect(watched.problems()).toEqual([expect.stringMatching(/^HTTP 409 POST .*\/offsets\/reset$/), expect.stringContaining("409")]);
    const described = (await call("GET", `/v1/share-groups/${shareGroup}`)).body as { partitions: { partition: number; acquired: number }[] };
    expect(described.partitions.reduce((sum, p) => sum + p.acquired, 0)).toBe(2);
    // Released through the API (a consumer giving its records back), the reset goes through: a dry run first.
    const fetched = (await call("GET", `/v1/topics/${topic}`)).body as { partitions: { partition: number; highWatermark: number }[] };
    const releases = held.records.map(({ partition, offset }) => ({ topic, partition, offsets: [offset], type: "release" }));
    expect((await call("POST", `/v1/share-groups/${shareGroup}/acknowledge`, { lease: held.lease, acknowledgements: releases })).status).toBe(200);
    watched.clearProblems();
    await form.getByRole("button", { name: "Dry run" }).click();
    await page.getByRole("status").filter({ hasText: /^Would set partition 0 → 5, partition 1 → 5\.$/ }).waitFor();
    await form.getByRole("button", { name: "Reset offsets" }).click();
    await page.getByRole("status").filter({ hasText: /^Set partition 0 → 5/ }).waitFor();
    const after = (await call("GET", `/v1/share-groups/${shareGroup}`)).body as { partitions: { partition: number; startOffset: number }[] };
    expect(after.partitions.map((p) => p.startOffset)).toEqual(fetched.partitions.map((p) => p.highWatermark));
    expect(watched.problems()).toEqual([]);
  });

  it("shows the subscription's delivery counts as the API reports them; pauses, resumes and deletes it", async () => {
    watched.clearProblems();
    await open(`#/subscriptions/${subscription}`, `Subscription ${subscription}`);
    const page = watched.page;
    await expect.poll(() => page.getByTestId("delivered").textContent()).toBe("9 records");
    expect(await page.getByTestId("dead-lettered").textContent()).toBe(`1 record → ${deadLetters}`);
    expect(await page.getByTestId("subscription-lag").textContent()).toBe("0 records not yet settled");
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => page.getByTestId("subscription-state").textContent()).toBe("Paused");
    expect((await call("GET", `/v1/subscriptions/${subscription}`)).body.paused).toBe(true);
    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => page.getByTestId("subscription-state").textContent()).toBe("Delivering");
    expect((await call("GET", `/v1/subscriptions/${subscription}`)).body.paused).toBe(false);
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("button", { name: `Delete ${subscription}` }).click();
    await page.getByRole("heading", { level: 1, name: "Subscriptions" }).waitFor();
    await page.getByText("No subscriptions yet.").waitFor();
    expect((await call("GET", `/v1/subscriptions/${subscription}`)).status).toBe(404);
    expect(watched.problems()).toEqual([]);
  });

  it("deletes a share group only once the deletion is confirmed", async () => {
    watched.clearProblems();
    await open(`#/share-groups/${shareGroup}`, `Share group ${shareGroup}`);
    const page = watched.page;
    await page.getByRole("button", { name: "Delete share group" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    expect((await call("GET", `/v1/share-groups/${shareGroup}`)).status).toBe(200);
    await page.getByRole("button", { name: "Delete share group" }).click();
    await page.getByRole("button", { name: `Delete ${shareGroup}` }).click();
    await page.getByText("No share groups yet: one starts with its first fetch.").waitFor();
    expect((await call("GET", `/v1/share-groups/${shareGroup}`)).status).toBe(404);
    expect(watched.problems()).toEqual([]);
  });
});
