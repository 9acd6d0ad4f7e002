/**
 * The web console (console/, docs/console.md) in Debian's Chromium against `wrangler dev` in
 * open local mode, with data: every page loads with no console error and no failed request
 * (screenshots of each in test-output/console/); the first load's JavaScript stays within
 * 150 KB gzipped; a topic created in the UI is in the API; a record produced in the form shows
 * in the browser; the lag shown for a group is the API's; every page fits a 390-pixel-wide
 * screen; charts show the last 15 minutes whatever their samples; a missing topic shows only
 * the error; "Latest 50" over all partitions lists the newest first; the Schemas page shows the
 * registry's subjects, a subject's versions and the diff between them, and sets its level. Controls are found by
 * their labels, as a screen reader finds them.
 */
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, narrowViewport, overflowOf, watchedPage, type WatchedPage } from "./support/console-browser.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

/** The bound on the first load: JavaScript, gzipped. */
const firstLoadJavaScriptGzipBytesMax = 150 * 1024;
const topic = "orders";
const group = "billing";
/** A topic of 60 records over 3 partitions, a second apart: "Latest 50" shows the newest 50 of them. */
const events = "events";
const eventCount = 60;
/** A subject of the schema registry with two versions: the second adds a field with a default (BACKWARD-compatible). */
const subject = "orders-value";
const orderSchema = (fields: { name: string; type: string; default?: string }[]) => JSON.stringify({ type: "record", name: "Order", fields: [{ name: "id", type: "string" }, ...fields] });

describe("the console against wrangler dev (open mode)", () => {
  let server: DevServer;
  let browser: Browser;
  let watched: WatchedPage;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };

  beforeAll(async () => {
    server = await startWranglerDev();
    expect((await call("POST", "/v1/topics", { name: topic, partitions: 3, replicationFactor: 3 })).status).toBe(201);
    const records = Array.from({ length: 9 }, (_, index) => ({
      key: `customer-${index % 3}`,
      value: JSON.stringify({ order: index, items: [{ sku: "A-1", quantity: index + 1 }] }),
      headers: { source: "e2e" },
      partition: index % 3,
    }));
    expect((await call("POST", `/v1/topics/${topic}/records`, { records })).status).toBe(200);
    // An empty group with commits (the API creates it): partition 0 read to 1, partition 1 to 3, partition 2 nothing.
    const commit = await call("POST", `/v1/groups/${group}/offsets`, { offsets: [{ topic, partition: 0, offset: 1 }, { topic, partition: 1, offset: 3 }] });
    expect(commit.status).toBe(204);
    expect((await call("POST", "/v1/topics", { name: events, partitions: 3 })).status).toBe(201);
    const firstTimestamp = Date.now() - eventCount * 1_000;
    const eventRecords = Array.from({ length: eventCount }, (_, index) => ({ value: `event-${index}`, partition: (index * 7) % 3, timestamp: firstTimestamp + index * 1_000 }));
    expect((await call("POST", `/v1/topics/${events}/records`, { records: eventRecords })).status).toBe(200);
    for (const schema of [orderSchema([]), orderSchema([{ name: "note", type: "string", default: "" }])]) {
      expect((await call("POST", `/registry/subjects/${subject}/versions`, { schema })).status).toBe(200);
    }
    browser = await launchChromium();
    watched = await watchedPage(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = async (hash: string, heading: string) => {
    await watched.page.goto(`${server.url}/${hash}`);
    await watched.page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };

  it("serves the console at / and keeps the first load's JavaScript within 150 KB gzipped", async () => {
    const scripts: Promise<number>[] = [];
    const listener = (response: import("playwright-core").Response) => {
      if (response.request().resourceType() === "script") scripts.push(response.body().then((body) => gzipSync(body).length));
    };
    watched.page.on("response", listener);
    await open("#/topics", "Topics");
    await watched.page.waitForLoadState("networkidle");
    watched.page.off("response", listener);
    const sizes = await Promise.all(scripts);
    expect(sizes.length).toBeGreaterThan(0);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    console.log(`console first load: ${sizes.length} script(s), ${total} bytes of JavaScript gzipped`);
    expect(total).toBeLessThanOrEqual(firstLoadJavaScriptGzipBytesMax);
  });

  const pages: { name: string; hash: string; heading: string; ready: string }[] = [
    { name: "topics", hash: "#/topics", heading: "Topics", ready: `role=img[name="records in per second over 15 minutes for ${topic}"]` },
    { name: "topic", hash: `#/topics/${topic}`, heading: `Topic ${topic}`, ready: "text=Records per second, last 15 minutes" },
    { name: "messages", hash: `#/topics/${topic}/messages`, heading: `Messages in ${topic}`, ready: "text=9 records read." },
    { name: "groups", hash: "#/groups", heading: "Consumer groups", ready: `role=link[name="${group}"]` },
    { name: "group", hash: `#/groups/${group}`, heading: `Group ${group}`, ready: "[data-testid=total-lag]" },
    { name: "schemas", hash: "#/schemas", heading: "Schemas", ready: `role=link[name="${subject}"]` },
    { name: "schema-subject", hash: `#/schemas/${subject}`, heading: `Subject ${subject}`, ready: "[data-testid=schema-diff]" },
    { name: "tokens", hash: "#/tokens", heading: "Tokens", ready: "text=No tokens." },
    { name: "cluster", hash: "#/cluster", heading: "Cluster", ready: "role=rowheader[name=\"wnam\"]" },
    { name: "api", hash: "#/api", heading: "API reference", ready: "role=heading[name=\"GET /v1/topics\"]" },
  ];

  for (const { name, hash, heading, ready } of pages) {
    it(`loads the ${name} page with no console error or failed request`, async () => {
      watched.clearProblems();
      await open(hash, heading);
      await watched.page.locator(ready).first().waitFor();
      await expect.poll(() => watched.page.getByText(/Loading/).count()).toBe(0);
      await watched.screenshot(name);
      expect(watched.problems()).toEqual([]);
    });
  }

  it("fits every page in a 390-pixel-wide screen, tables included", async () => {
    const narrow = await watchedPage(browser, { viewport: narrowViewport });
    for (const { name, hash, heading, ready } of pages) {
      await narrow.page.goto(`${server.url}/${hash}`);
      await narrow.page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await narrow.page.locator(ready).first().waitFor();
      await expect.poll(() => narrow.page.getByText(/Loading/).count()).toBe(0);
      await narrow.screenshot(`${name}-narrow`);
      expect({ page: name, ...(await overflowOf(narrow.page)) }).toEqual({ page: name, documentWidth: narrowViewport.width, windowWidth: narrowViewport.width, overflowing: [] });
    }
    expect(narrow.problems()).toEqual([]);
    await narrow.page.context().close();
  });

  it("lists the registry's subjects, shows a subject's versions and the diff between them, and sets its compatibility level", async () => {
    watched.clearProblems();
    await open("#/schemas", "Schemas");
    const page = watched.page;
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: subject }) });
    await expect.poll(() => row.locator("td").allTextContents()).toEqual(["2", "AVRO", "2"]);
    // A soft-deleted subject is listed, marked, only when asked for.
    expect((await call("POST", "/registry/subjects/retired-value/versions", { schema: '"string"' })).status).toBe(200);
    expect((await call("DELETE", "/registry/subjects/retired-value")).status).toBe(200);
    await page.getByLabel("Show soft-deleted subjects").check();
    const retired = page.getByRole("row").filter({ has: page.getByRole("link", { name: "retired-value" }) });
    await expect.poll(() => retired.textContent()).toBe("retired-value soft-deleted1AVRO3");
    await page.getByLabel("Show soft-deleted subjects").uncheck();
    await expect.poll(() => retired.count()).toBe(0);
    await page.getByLabel("Subject contains").fill("no-such");
    await page.getByText("No subject contains “no-such”.").waitFor();
    await page.getByLabel("Subject contains").fill("orders");
    await page.getByRole("link", { name: subject }).click();
    await page.getByRole("heading", { level: 1, name: `Subject ${subject}` }).waitFor();
    await page.getByText("Version 1 · id 1 · AVRO").waitFor();
    await page.getByText("Version 2 · id 2 · AVRO").waitFor();
    expect(await page.getByLabel("Schema of version 2").textContent()).toContain('"name": "note"');
    // The diff from version 1 to 2 is the field added, and nothing removed.
    const diff = page.getByTestId("schema-diff");
    expect(await diff.locator("del").count()).toBe(0);
    expect(await diff.locator("ins").allTextContents()).toEqual(["+     },", "+     {", '+       "name": "note",', '+       "type": "string",', '+       "default": ""']);
    expect(await page.getByTestId("diff-summary").textContent()).toContain("Version 1 → 2: 5 lines added, 0 removed.");
    await page.getByRole("combobox", { name: "From version" }).selectOption("2");
    await expect.poll(() => page.getByTestId("diff-summary").textContent()).toContain("Version 2 → 2: 0 lines added, 0 removed.");
    await expect.poll(() => page.getByTestId("subject-compatibility").textContent()).toBe("BACKWARD");
    const form = page.getByRole("form", { name: "Set the compatibility level" });
    await form.getByLabel("Compatibility level").selectOption("FULL_TRANSITIVE");
    await form.getByRole("button", { name: "Set level" }).click();
    await page.getByRole("status").filter({ hasText: `Set the compatibility level of ${subject} to FULL_TRANSITIVE.` }).waitFor();
    expect((await call("GET", `/registry/config/${subject}`)).body).toEqual({ compatibilityLevel: "FULL_TRANSITIVE" });
    // The page reads the level back after setting it: that read answered before the reload (a
    // reload while it is out aborts it, which the watcher counts as a failed request).
    await expect.poll(() => page.getByTestId("subject-compatibility").textContent()).toBe("FULL_TRANSITIVE");
    await page.waitForLoadState("networkidle");
    // It sticks: a fresh page reads it back from the registry, the global level unchanged.
    await page.reload();
    await expect.poll(() => page.getByTestId("subject-compatibility").textContent()).toBe("FULL_TRANSITIVE");
    expect(await form.getByLabel("Compatibility level").inputValue()).toBe("FULL_TRANSITIVE");
    expect((await call("GET", "/registry/config")).body).toEqual({ compatibilityLevel: "BACKWARD" });
    expect(watched.problems()).toEqual([]);
  });

  it("says in the header that this open deployment needs no token, and on the tokens page why it creates none", async () => {
    watched.clearProblems();
    await open("#/tokens", "Tokens");
    const page = watched.page;
    await expect.poll(() => page.getByTestId("token-kind").textContent()).toBe("Open mode: no token needed");
    await page.getByTestId("tokens-open-mode").filter({ hasText: "SECURITY_DISABLED" }).waitFor();
    expect(await page.getByText("Create a token").count()).toBe(0);
    expect(await page.getByLabel("Token", { exact: true }).count()).toBe(0);
    expect(watched.problems()).toEqual([]);
  });

  it("charts the last 15 minutes up to now, whatever the samples: one lag sample, no traffic at all", async () => {
    const windowOf = async (caption: string) => {
      const chart = watched.page.locator("figure.chart").filter({ hasText: caption }).locator("[role=img]");
      await expect.poll(() => chart.getAttribute("data-x-max")).not.toBeNull();
      return { min: Number(await chart.getAttribute("data-x-min")), max: Number(await chart.getAttribute("data-x-max")) };
    };
    expect((await call("POST", "/v1/topics", { name: "quiet", partitions: 1 })).status).toBe(201);
    for (const [hash, heading, caption] of [[`#/groups/${group}`, `Group ${group}`, "Total lag"], ["#/topics/quiet", "Topic quiet", "Records per second"]] as const) {
      watched.clearProblems();
      await open(hash, heading);
      const range = await windowOf(caption);
      expect(Math.abs(range.max - range.min - 15 * 60)).toBeLessThan(1);
      expect(Math.abs(range.max - Date.now() / 1000)).toBeLessThan(60);
      expect(watched.problems()).toEqual([]);
    }
    await watched.screenshot("group-one-sample");
  });

  it("shows only the API's error for a topic that does not exist: no chart, no link to its messages", async () => {
    const missing = await watchedPage(browser, { tolerated: (url, status) => status === 404 && new URL(url).pathname === "/v1/topics/no-such-topic" });
    for (const [hash, heading] of [["#/topics/no-such-topic", "Topic no-such-topic"], ["#/topics/no-such-topic/messages", "Messages in no-such-topic"]]) {
      await missing.page.goto(`${server.url}/${hash}`);
      await missing.page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await expect.poll(() => missing.page.getByRole("alert").textContent()).toMatch(/^UNKNOWN_TOPIC_OR_PARTITION: /);
      expect(await missing.page.locator("main figure, main form, main table").count()).toBe(0);
      expect(await missing.page.getByRole("link", { name: "Browse and produce messages" }).count()).toBe(0);
    }
    await missing.screenshot("topic-missing");
    expect(missing.problems()).toEqual([]);
    await missing.page.context().close();
  });

  it("lists the latest 50 over all partitions newest first, across partitions by timestamp", async () => {
    watched.clearProblems();
    await open(`#/topics/${events}/messages`, `Messages in ${events}`);
    const page = watched.page;
    await page.getByText(`The newest 50 of ${eventCount} records read, newest first.`).waitFor();
    const values = await page.getByRole("table", { name: "Records" }).locator("tbody tr td:nth-child(5)").allTextContents();
    expect(values).toEqual(Array.from({ length: 50 }, (_, index) => `event-${eventCount - 1 - index}`));
    await watched.screenshot("messages-latest");
    expect(watched.problems()).toEqual([]);
  });

  it("is usable from the keyboard: a page opened focuses its heading; the skip link leads the navigation", async () => {
    await open("#/topics", "Topics");
    const page = watched.page;
    const focused = () => page.evaluate<string>("document.activeElement.tagName + ' ' + document.activeElement.textContent");
    await expect.poll(focused).toBe("H1 Topics");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("SUMMARY Create a topic");
    // The first stop in the document is the skip link, then the navigation in order.
    await page.getByRole("link", { name: "Skip to content" }).focus();
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Topics");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Consumer groups");
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("H1 Consumer groups");
  });

  it("shows the topics page in dark mode too", async () => {
    const dark = await watchedPage(browser, { colorScheme: "dark" });
    await dark.page.goto(`${server.url}/#/topics`);
    await dark.page.getByRole("link", { name: topic }).waitFor();
    await dark.page.waitForLoadState("networkidle");
    await dark.screenshot("topics-dark");
    const background = await dark.page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(15, 17, 21)");
    expect(dark.problems()).toEqual([]);
    await dark.page.context().close();
  });

  it("creates a topic in the UI, and the API shows it", async () => {
    watched.clearProblems();
    await open("#/topics", "Topics");
    const page = watched.page;
    await page.getByText("Create a topic").click();
    const form = page.getByRole("form", { name: "Create a topic" });
    await form.getByLabel("Name", { exact: true }).fill("payments");
    await form.getByLabel("Partitions").fill("2");
    await form.getByLabel(/Configs/).fill("retention.ms=3600000");
    await form.getByRole("button", { name: "Create topic" }).click();
    await page.getByRole("status").filter({ hasText: "Created topic payments." }).waitFor();
    await page.getByRole("link", { name: "payments" }).waitFor();
    const described = await call("GET", "/v1/topics/payments");
    expect(described.status).toBe(200);
    expect(described.body.partitions).toHaveLength(2);
    expect(described.body.configs["retention.ms"]).toBe("3600000");
    expect(watched.problems()).toEqual([]);
  });

  it("shows the API's validation message when a config is refused", async () => {
    await open("#/topics/payments", "Topic payments");
    const page = watched.page;
    const form = page.getByRole("form", { name: "Set a config" });
    await form.getByRole("combobox", { name: /^Config/ }).selectOption("segment.bytes");
    await form.getByLabel("Value", { exact: true }).fill("12");
    watched.clearProblems();
    await form.getByRole("button", { name: "Set config" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^INVALID_CONFIG: .*segment\.bytes/);
    // The refusal is the API's 400 (which Chromium also logs), shown to the user: the one answer this step expects.
    expect(watched.problems()).toEqual([
      expect.stringMatching(/^HTTP 400 PATCH .*\/v1\/topics\/payments\/configs$/),
      "console error: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  });

  it("shows values decoded by their schemas (decode=schema), with the schema id, and others as they are with why", async () => {
    watched.clearProblems();
    const payments = "schema-encoded";
    expect((await call("POST", "/v1/topics", { name: payments })).status).toBe(201);
    const { id } = (await call("GET", `/registry/subjects/${subject}/versions/1`)).body as { id: number };
    // Confluent's wire format: magic byte 0, the id (4 bytes, big-endian), then Avro's binary {"id": "o-1"} (a string: zigzag length 3, its bytes).
    const avro = Buffer.from([0, 0, 0, 0, id, 6, ..."o-1"].map((byte) => (typeof byte === "string" ? byte.charCodeAt(0) : byte)));
    const produced = await call("POST", `/v1/topics/${payments}/records`, { encoding: "base64", records: [{ value: avro.toString("base64") }, { value: Buffer.from("plain text").toString("base64") }] });
    expect(produced.status).toBe(200);
    await open(`#/topics/${payments}/messages`, `Messages in ${payments}`);
    const page = watched.page;
    await page.getByText("2 records read.").waitFor();
    await page.getByLabel("Decoded by schema").check();
    const decoded = page.getByRole("row").filter({ hasText: `schema ${id}` });
    await expect.poll(() => decoded.textContent()).toContain('"id": "o-1"');
    await expect.poll(() => page.getByRole("row").filter({ hasText: "plain text" }).textContent()).toContain("not decoded: ");
    expect(watched.problems()).toEqual([]);
  });

  it("produces a record in the form, and the browser shows it", async () => {
    watched.clearProblems();
    await open(`#/topics/${topic}/messages`, `Messages in ${topic}`);
    const page = watched.page;
    await page.getByText("9 records read.").waitFor();
    await page.getByText("Produce a record").click();
    const form = page.getByRole("form", { name: "Produce a record" });
    await form.getByLabel(/^Key/).fill("customer-42");
    await form.getByLabel("Partition").selectOption("2");
    await form.getByLabel("Value", { exact: true }).fill('{"order": 42, "note": "from the console"}');
    await form.getByLabel(/^Headers/).fill("trace-id: abc-123");
    await form.getByRole("button", { name: "Produce" }).click();
    await page.getByRole("status").filter({ hasText: "Produced to partition 2 at offset 3." }).waitFor();
    const row = page.getByRole("row").filter({ hasText: "customer-42" });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('"note": "from the console"');
    expect(await row.textContent()).toContain("abc-123");
    const fetched = await call("GET", `/v1/topics/${topic}/partitions/2/records?offset=3`);
    expect(fetched.body.records[0]).toMatchObject({ key: "customer-42", headers: { "trace-id": "abc-123" } });
    await watched.screenshot("messages-produced");
    expect(watched.problems()).toEqual([]);
  });

  it("shows a record arriving on the live tail", async () => {
    watched.clearProblems();
    await open(`#/topics/${topic}/messages`, `Messages in ${topic}`);
    const page = watched.page;
    await page.getByText(/records read\./).waitFor();
    await page.getByRole("button", { name: "Live tail" }).click();
    await page.getByText("Live: waiting for records…").waitFor();
    expect((await call("POST", `/v1/topics/${topic}/records`, { records: [{ key: "tail-key", value: "tailed" }] })).status).toBe(200);
    await page.getByRole("row").filter({ hasText: "tail-key" }).waitFor();
    await page.getByRole("button", { name: "Stop live tail" }).click();
    expect(watched.problems()).toEqual([]);
  });

  it("shows the group's lag as the API reports it", async () => {
    watched.clearProblems();
    await open(`#/groups/${group}`, `Group ${group}`);
    const page = watched.page;
    await page.getByTestId("total-lag").waitFor();
    const api = await call("GET", `/v1/groups/${group}/offsets`);
    const offsets = api.body.offsets as { topic: string; partition: number; lag: number | null }[];
    expect(offsets.length).toBeGreaterThan(0);
    for (const row of offsets) {
      await expect.poll(() => page.getByTestId(`lag-${row.topic}-${row.partition}`).textContent()).toBe(row.lag === null ? "—" : String(row.lag));
    }
    const total = offsets.reduce((sum, row) => sum + (row.lag ?? 0), 0);
    await expect.poll(() => page.getByTestId("total-lag").textContent()).toBe(String(total));
    expect(watched.problems()).toEqual([]);
  });

  it("resets an empty group's offsets (a dry run first), and the API has them", async () => {
    watched.clearProblems();
    await open(`#/groups/${group}`, `Group ${group}`);
    const page = watched.page;
    const form = page.getByRole("form", { name: "Reset offsets" });
    await form.getByLabel("Topic", { exact: true }).fill(topic);
    await form.getByRole("combobox", { name: "To", exact: true }).selectOption("earliest");
    await form.getByRole("button", { name: "Dry run" }).click();
    await page.getByRole("status").filter({ hasText: "Would set partition 0 → 0, partition 1 → 0, partition 2 → 0." }).waitFor();
    expect((await call("GET", `/v1/groups/${group}/offsets`)).body.offsets[1].offset).toBe(3);
    await form.getByRole("button", { name: "Reset offsets" }).click();
    await page.getByRole("status").filter({ hasText: /^Set partition 0 → 0/ }).waitFor();
    const offsets = (await call("GET", `/v1/groups/${group}/offsets`)).body.offsets as { offset: number | null }[];
    expect(offsets.map((row) => row.offset)).toEqual([0, 0, 0]);
    expect(watched.problems()).toEqual([]);
  });

  it("deletes a topic only once the deletion is confirmed", async () => {
    watched.clearProblems();
    await open("#/topics", "Topics");
    const page = watched.page;
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "payments" }) });
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Cancel" }).click();
    expect((await call("GET", "/v1/topics/payments")).status).toBe(200);
    await row.getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => page.evaluate<string>("document.activeElement.textContent")).toBe("Delete payments");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Deleted topic payments." }).waitFor();
    expect((await call("GET", "/v1/topics/payments")).status).toBe(404);
    await expect.poll(() => page.getByRole("link", { name: "payments" }).count()).toBe(0);
    expect(watched.problems()).toEqual([]);
  });
});
