/**
 * Debian's Chromium driven by playwright-core for the console's e2e tests (no browser is ever
 * downloaded; `.ci/run` installs the `chromium` package when it is missing). A page records
 * what the tests forbid — console errors, uncaught exceptions, failed requests and error
 * answers — and screenshots go to test-output/console/ (gitignored).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { repositoryRoot } from "./wrangler-dev.ts";

export const chromiumPath = "/usr/bin/chromium";
export const screenshotDirectory = join(repositoryRoot, "test-output", "console");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"], headless: true });
}

export interface WatchedPage {
  page: Page;
  /** Everything that went wrong since the page opened (or since the last `clearProblems`). */
  problems(): string[];
  clearProblems(): void;
  screenshot(name: string): Promise<void>;
}

/**
 * A page that notes every console error, page error, failed request and 4xx/5xx answer.
 * `tolerated(url, status)` names answers a test expects (the API's refusal it checks the page
 * shows); everything else counts.
 */
export async function watchedPage(browser: Browser, options: { colorScheme?: "light" | "dark"; tolerated?: (url: string, status: number) => boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: options.colorScheme ?? "light" });
  const page = await context.newPage();
  const tolerated = options.tolerated ?? (() => false);
  let problems: string[] = [];
  const failedUrls = new Set<string>();
  page.on("response", (response) => {
    if (response.status() < 400) return;
    if (tolerated(response.url(), response.status())) return failedUrls.add(response.url()) && undefined;
    problems.push(`HTTP ${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // Chromium logs each error answer as a console error too: a tolerated answer's line is not one more problem.
    if (failedUrls.has(message.location().url)) return;
    problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    // The live tail's stream, closed by the page itself when the tail stops or the page changes.
    if (request.failure()?.errorText === "net::ERR_ABORTED" && request.headers().accept === "text/event-stream") return;
    problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`);
  });
  mkdirSync(screenshotDirectory, { recursive: true });
  return {
    page,
    problems: () => problems,
    clearProblems: () => { problems = []; },
    screenshot: async (name) => { await page.screenshot({ path: join(screenshotDirectory, `${name}.png`), fullPage: true }); },
  };
}
