/**
 * The JUnit 5 project of test/java (src/test/java, issue 29) run against a gateway: compiled
 * once per content of its sources (java-clients.ts' `compiledProject`: javac, no Maven start),
 * then run by JUnit's console launcher in one JVM, the gateway's bootstrap
 * address and wrangler dev's URL as system properties (`tributary.bootstrap`, `tributary.http`),
 * the classes in parallel. Each check's outcome comes from the launcher's XML report, so that a
 * failing e2e test names the JUnit checks that failed and why:
 *
 *   const run = await runJUnit(["tributary.gateway.AdminTest"], { bootstrap: gateway.address, http: server.url });
 *   expect(failedChecks(run), run.output).toEqual([]);
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runToEnd } from "./child-run.ts";
import { compiledProject } from "./java-clients.ts";

/** One JUnit check (a test method, or one invocation of a parameterized one) as its report tells it. */
export interface JUnitCheck {
  name: string;
  outcome: "passed" | "failed" | "skipped";
  /** The failure's type and message, and the first frames of the test's own code. */
  failure?: string;
}

export interface JUnitRun {
  code: number | null;
  checks: JUnitCheck[];
  /** The launcher's output and the clients' warnings, for a failing test's message. */
  output: string;
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, "&");
}

/** The checks of the launcher's legacy XML reports (one `testcase` element each). */
function checksOf(reports: string): JUnitCheck[] {
  const checks: JUnitCheck[] = [];
  for (const file of readdirSync(reports).filter((name) => name.endsWith(".xml") && name.startsWith("TEST-"))) {
    const xml = readFileSync(join(reports, file), "utf8");
    for (const match of xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const body = match[4] ?? "";
      const name = `${unescapeXml(match[2]!).replace(/^tributary\.gateway\./, "")}.${unescapeXml(match[1]!)}`;
      const failed = /<(failure|error)[\s>]/.exec(body);
      if (failed === null) {
        checks.push({ name, outcome: /<skipped/.test(body) ? "skipped" : "passed" });
        continue;
      }
      const trace = unescapeXml(/<(?:failure|error)[^>]*>([\s\S]*?)<\/(?:failure|error)>/.exec(body)?.[1] ?? "").replace(/^<!\[CDATA\[|\]\]>$/g, "");
      const lines = trace.split("\n");
      const own = lines.filter((line) => line.includes("tributary.gateway.")).slice(0, 3);
      checks.push({ name, outcome: "failed", failure: [lines[0]!, ...own.map((line) => line.trim())].join(" | ") });
    }
  }
  return checks.sort((a, b) => a.name.localeCompare(b.name));
}

/** Runs the JUnit classes (fully qualified) against a gateway; killed (SIGKILL) after `timeoutMs`. */
export async function runJUnit(classNames: string[], where: { bootstrap: string; http: string }, timeoutMs = 150_000): Promise<JUnitRun> {
  const { lib, classes } = await compiledProject();
  const reports = mkdtempSync(join(tmpdir(), "tributary-junit-"));
  try {
    const java = [
      "-Xmx512m",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
      `-Dtributary.bootstrap=${where.bootstrap}`,
      `-Dtributary.http=${where.http}`,
      "-cp", `${classes}:${join(lib, "*")}`,
      "org.junit.platform.console.ConsoleLauncher", "execute",
      "--disable-banner", "--details=none", "--reports-dir", reports,
      // The checks wait on the network, not the CPU: the classes run side by side.
      "--config=junit.jupiter.execution.parallel.enabled=true",
      "--config=junit.jupiter.execution.parallel.mode.classes.default=concurrent",
      ...classNames.map((name) => `--select-class=${name}`),
    ];
    const run = await runToEnd("java", java, "java JUnit", timeoutMs);
    const checks = existsSync(reports) ? checksOf(reports) : [];
    return { code: run.code, checks, output: `${run.stdout}\n${run.stderr}`.trim() };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

/** The failed checks, each with why: what a test expects to be `[]`. */
export function failedChecks(run: JUnitRun): string[] {
  return run.checks.filter((check) => check.outcome === "failed").map((check) => `${check.name}: ${check.failure}`);
}
