/**
 * The console against a deployment with an admin token (`wrangler dev` with
 * TRIBUTARY_ADMIN_TOKEN): the assets need no token and the data always does; a token typed in
 * once is kept for the tab and sent as `Authorization`; a scoped token's view hides the topics
 * it may not describe and the actions it may not take; the header names the kind of token in
 * use (admin, scoped and its id, read or write and its topic), never any of its secret; the
 * token field asks for a token because the server's health says it needs one; the admin
 * creates a token in the UI and sees its secret once.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, watchedPage } from "./support/console-browser.ts";
import { startWranglerDev, type DevServer } from "./support/wrangler-dev.ts";

describe("the console against a deployment with tokens", () => {
  const adminToken = `e2e-console-admin-${crypto.randomUUID()}`;
  let server: DevServer;
  let browser: Browser;
  let scopedToken = "";

  const call = async (method: string, path: string, body?: unknown, token: string | null = adminToken) => {
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, body: response.headers.get("content-type")?.includes("json") && text !== "" ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    server = await startWranglerDev({ vars: { TRIBUTARY_ADMIN_TOKEN: adminToken } });
    for (const name of ["shop-orders", "hr-salaries"]) expect((await call("POST", "/v1/topics", { name, partitions: 1 })).status).toBe(201);
    const created = await call("POST", "/v1/tokens", {
      name: "shop-reader",
      rules: [{ resource: "topic", name: "shop-", patternType: "prefixed", operations: ["read"] }],
    });
    expect(created.status).toBe(201);
    scopedToken = created.body.token;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("serves the console's assets without a token, and the data only with one", async () => {
    const index = await call("GET", "/", undefined, null);
    expect(index.status).toBe(200);
    expect(index.contentType).toContain("text/html");
    const script = index.text.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    expect((await call("GET", script!, undefined, null)).status).toBe(200);
    for (const path of ["/v1/topics", "/v1/groups", "/v1/tokens", "/v1/topics/shop-orders"]) {
      const refused = await call("GET", path, undefined, null);
      expect({ path, status: refused.status, code: refused.body?.error?.code }).toEqual({ path, status: 401, code: "UNAUTHENTICATED" });
    }
  });

  it("shows a scoped token only the topics it may describe, once the token is typed in", async () => {
    // The API refuses the metrics to a token that may not describe the cluster (docs/api.md): the page then shows no rates, and says why.
    const metricsRefused = (url: string, status: number) => status === 403 && new URL(url).pathname === "/v1/metrics";
    const watched = await watchedPage(browser, { tolerated: metricsRefused });
    const page = watched.page;
    await page.goto(`${server.url}/#/topics`);
    // Without a token the API answers 401, and the page says so.
    await expect.poll(() => page.getByRole("alert").first().textContent()).toMatch(/^UNAUTHENTICATED/);
    await page.getByLabel("Token", { exact: true }).fill(scopedToken);
    await page.getByRole("button", { name: "Use token" }).click();
    await page.getByRole("link", { name: "shop-orders" }).waitFor();
    expect(await page.getByRole("link", { name: "hr-salaries" }).count()).toBe(0);
    await page.getByText("Rates need a token that may describe the cluster").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("tributary.console.token"))).toBe(scopedToken);
    await watched.screenshot("topics-scoped-token");
    // Kept for the tab: a reload still sends it.
    watched.clearProblems();
    await page.reload();
    await page.getByRole("link", { name: "shop-orders" }).waitFor();
    expect(await page.getByRole("link", { name: "hr-salaries" }).count()).toBe(0);
    expect(watched.problems()).toEqual([]);
    await page.context().close();
  });

  it("asks for a token because the server says it needs one, and names the token in use by its kind, never by its secret", async () => {
    const minted = async (kind: "read" | "write") => {
      const answer = await call("POST", `/v1/topics/shop-orders/${kind}-tokens`, {});
      expect(answer.status).toBe(201);
      return answer.body.token as string;
    };
    const scopedId = scopedToken.slice(4, 20);
    const cases = [
      { token: adminToken, kind: "Admin token", secret: adminToken },
      { token: scopedToken, kind: `Scoped token ${scopedId}`, secret: scopedToken.slice(21) },
      { token: await minted("read"), kind: "Read token for shop-orders", secret: "" },
      { token: await minted("write"), kind: "Write token for shop-orders", secret: "" },
    ];
    // A read or write token's secret is its signature (after the "."), its payload only names the topic.
    for (const entry of cases) if (entry.secret === "") entry.secret = entry.token.slice(entry.token.indexOf(".") + 1);
    const refusedWithoutToken = (url: string, status: number) => status === 401 || (status === 403 && new URL(url).pathname === "/v1/metrics");
    for (const { token, kind, secret } of cases) {
      const watched = await watchedPage(browser, { tolerated: refusedWithoutToken });
      const page = watched.page;
      await page.goto(`${server.url}/#/cluster`);
      const field = page.getByLabel("Token", { exact: true });
      await expect.poll(() => field.getAttribute("placeholder")).toBe("this server needs a token");
      await field.fill(token);
      await page.getByRole("button", { name: "Use token" }).click();
      await expect.poll(() => page.getByTestId("token-kind").textContent()).toBe(kind);
      const text = await page.evaluate<string>("document.body.innerText");
      for (const piece of [secret.slice(0, 5), secret.slice(-5), token.slice(0, 8)].filter((part) => !kind.includes(part))) expect({ kind, shows: text.includes(piece) }).toEqual({ kind, shows: false });
      if (kind === "Admin token") await watched.screenshot("token-kind-admin");
      await page.context().close();
    }
  });

  it("offers a scoped token no action it may not take: no delete, create, config change or produce", async () => {
    const metricsRefused = (url: string, status: number) => status === 403 && new URL(url).pathname === "/v1/metrics";
    const watched = await watchedPage(browser, { tolerated: metricsRefused });
    const page = watched.page;
    // The token as typed in earlier in this tab (the token field's test is above).
    await page.addInitScript(`sessionStorage.setItem("tributary.console.token", ${JSON.stringify(scopedToken)})`);
    await page.goto(`${server.url}/#/topics`);
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "shop-orders" }) });
    await row.getByRole("link", { name: "Messages" }).waitFor();
    await expect.poll(() => page.getByTestId("token-kind").textContent()).toMatch(/^Scoped token /);
    expect(await row.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await page.getByText("Create a topic").count()).toBe(0);
    await watched.screenshot("topics-scoped-no-actions");
    await page.goto(`${server.url}/#/topics/shop-orders`);
    await page.getByRole("heading", { name: "Configs" }).waitFor();
    expect(await page.getByRole("form", { name: "Set a config" }).count()).toBe(0);
    await page.goto(`${server.url}/#/topics/shop-orders/messages`);
    await page.getByText(/records? read\./).waitFor();
    expect(await page.getByText("Produce a record").count()).toBe(0);
    // The tokens page says whose they are to manage, and asks the API nothing it would refuse.
    await page.goto(`${server.url}/#/tokens`);
    await page.getByTestId("tokens-admin-only").waitFor();
    expect(await page.getByTestId("tokens-admin-only").textContent()).toContain("Only the admin token manages tokens");
    await page.getByText("read on topic shop-*").waitFor();
    expect(watched.problems()).toEqual([]);
    await page.context().close();
  });

  it("lets the admin create a token in the UI and shows its secret once", async () => {
    const watched = await watchedPage(browser);
    const page = watched.page;
    await page.goto(`${server.url}/#/tokens`);
    // Without a token the page asks the API nothing: it says who may manage tokens.
    await page.getByTestId("tokens-admin-only").filter({ hasText: "this session holds no valid token" }).waitFor();
    await page.getByLabel("Token", { exact: true }).fill(adminToken);
    await page.getByRole("button", { name: "Use token" }).click();
    await page.getByRole("cell", { name: "shop-reader" }).or(page.getByRole("rowheader", { name: "shop-reader" })).waitFor();
    await page.getByText("Create a token").click();
    const form = page.getByRole("form", { name: "Create a token" });
    await form.getByLabel("Name", { exact: true }).first().fill("ci-writer");
    const rule = form.getByRole("group", { name: "Rule 1" });
    await rule.getByLabel("Name").fill("ci-");
    await rule.getByRole("combobox", { name: /^Pattern/ }).selectOption("prefixed");
    await rule.getByLabel("write").check();
    await form.getByRole("button", { name: "Create token" }).click();
    const secret = await page.getByTestId("token-secret").textContent();
    expect(secret).toMatch(/^trb_[0-9a-f]{16}_/);
    const listed = await call("GET", "/v1/tokens");
    const created = (listed.body.tokens as { name: string; rules: unknown[] }[]).find((token) => token.name === "ci-writer");
    expect(created?.rules).toEqual([{ resource: "topic", name: "ci-", patternType: "prefixed", operations: ["read", "write"] }]);
    // The secret works, and is never shown again: the list holds no secret.
    expect((await call("GET", "/v1/topics", undefined, secret)).status).toBe(200);
    await watched.screenshot("tokens-secret-once");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByText(secret!).count()).toBe(0);
    // Revoked from its row, after a confirmation: the API lists it no more.
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "ci-writer" }) });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Revoke ci-writer" }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect(((await call("GET", "/v1/tokens")).body.tokens as { name: string }[]).map((token) => token.name)).toEqual(["shop-reader"]);
    expect(watched.problems()).toEqual([]);
    await page.context().close();
  });
});
