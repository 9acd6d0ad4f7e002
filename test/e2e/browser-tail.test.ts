/**
 * examples/browser-tail in a real browser (Debian's chromium, driven by playwright-core; no
 * browser is downloaded): the page, served by a small static server on its own origin, opens
 * an EventSource on a topic's stream of a `wrangler dev` with an admin token, authenticated
 * with a read token as ?access_token=, and shows records as they are produced — across the
 * CORS boundary, without a console error.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Tributary } from "../../src/client/index.ts";
import { freePort, repositoryRoot, startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

const adminToken = "browser-tail-admin-token-0123456789";
const exampleDirectory = join(repositoryRoot, "examples", "browser-tail");
const contentTypes: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };
/** The browser's executable: Debian's package (CI installs it when missing, .ci/run). */
const chromiumPath = "/usr/bin/chromium";

/** The example's two files on 127.0.0.1, as any static server would serve them. */
async function serveExample(): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (request, response) => {
    const name = new URL(request.url ?? "/", "http://x").pathname === "/" ? "index.html" : new URL(request.url ?? "/", "http://x").pathname.slice(1);
    const type = contentTypes[name.slice(name.lastIndexOf("."))];
    if (type === undefined || name.includes("/")) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": type }).end(await readFile(join(exampleDirectory, name)));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${port}` };
}

describe("examples/browser-tail in chromium", () => {
  let tributary: DevServer;
  let page: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    [tributary, page, browser] = await Promise.all([
      startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } }),
      serveExample(),
      chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"], headless: true }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    page?.server.close();
    await tributary?.stop();
  });

  it("shows the records of every partition as they are produced, with a read token", async () => {
    const client = new Tributary({ url: tributary.url, token: adminToken });
    await client.admin().topics.create({ name: "clicks", partitions: 2 });
    await client.topic("clicks").produce([{ value: "before-0", partition: 0 }, { value: "before-1", partition: 1 }]);
    const { token } = await client.topic("clicks").readToken({ ttlMs: 5 * 60_000 });

    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on("console", (message) => void (message.type() === "error" && problems.push(message.text())));
    tab.on("pageerror", (error) => void problems.push(error.message));
    const address = `${page.origin}/?server=${encodeURIComponent(tributary.url)}&topic=clicks&from=earliest#token=${token.reveal()}`;
    await tab.goto(address);
    // Functions run in the page, written as strings: this project's types have no DOM.
    const rowCount = (count: number) => tab.waitForFunction(`document.querySelectorAll("#records tr").length === ${count}`, undefined, { timeout: 30_000 });
    const rows = () => tab.evaluate<string[]>(`[...document.querySelectorAll("#records tr")].map((tr) => tr.dataset.partition + ":" + tr.cells[4].textContent)`);
    await rowCount(2);

    await client.topic("clicks").produce([{ value: "after-0", partition: 0 }, { value: "after-1", partition: 1 }, { value: "ünïcödé ✓", key: "k", partition: 0 }]);
    await rowCount(5);
    expect((await rows()).sort()).toEqual(["0:after-0", "0:before-0", "0:ünïcödé ✓", "1:after-1", "1:before-1"]);
    expect(await tab.textContent("#status")).toBe("Tailing clicks: 5 records so far.");
    expect(problems).toEqual([]);
  });

  it("says so when the server refuses the token", async () => {
    const tab = await browser.newPage();
    await tab.goto(`${page.origin}/?server=${encodeURIComponent(tributary.url)}&topic=clicks#token=trr_not-a-token`);
    await tab.waitForFunction(`document.getElementById("status").dataset.state === "error"`, undefined, { timeout: 30_000 });
    expect(await tab.textContent("#status")).toContain("The server refused the stream");
  });
});
