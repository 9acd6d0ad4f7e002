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
export async function watchedPage(
  browser: Browser,
  options: { colorScheme?: "light" | "dark"; tolerated?: (url: string, status: number) => boolean; viewport?: { width: number; height: number } } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 860 }, colorScheme: options.colorScheme ?? "light" });
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

/** A phone's screen (an iPhone 12 to 15's CSS pixels): the width every table must fit. */
export const narrowViewport = { width: 390, height: 844 };

/**
 * What sticks out of a narrow page: the document wider than the window (the page would scroll
 * sideways), and each table or other element whose right edge passes the window's, by name.
 */
export function overflowOf(page: Page): Promise<{ documentWidth: number; windowWidth: number; overflowing: string[] }> {
  // A string: the test layer has no DOM types, the page runs it as it is.
  return page.evaluate(`(() => {
    const windowWidth = window.innerWidth;
    const overflowing = [...document.querySelectorAll("main table, main form, main figure, main pre, main dl, header")]
      .filter((element) => element.getBoundingClientRect().right > windowWidth + 0.5)
      .map((element) => (element.tagName.toLowerCase() + " " + (element.getAttribute("aria-label") ?? element.querySelector("caption")?.textContent ?? "")).trim() + " (right edge " + Math.round(element.getBoundingClientRect().right) + ")");
    return { documentWidth: document.documentElement.scrollWidth, windowWidth, overflowing };
  })()`);
}
