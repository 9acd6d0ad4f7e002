/**
 * The Java Kafka client for e2e tests: test/java/pom.xml pins it; the first call copies it and
 * its runtime dependencies from Maven Central (`mvn dependency:copy-dependencies`, Maven's own
 * cache in ~/.m2) into .cache/java/<the pom's hash>/lib (git-ignored), and later calls and runs
 * reuse it. The project's sources (test/java/src/test/java: the JUnit checks, java-junit.ts, and
 * the programs an e2e test drives step by step, package `tributary.programs`) are compiled once
 * per content with javac into .cache/java/<the pom's hash>/classes-<the sources' hash>, no Maven
 * start; a program runs as its main class on that classpath. Needs `java` (17+) and `mvn` on the
 * PATH; without them it fails at once, naming what to install.
 *
 *   const { stdout } = await runJava("NumberedProducers", [gateway.address, "topic", …]);
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { runToEnd, type ChildRun } from "./child-run.ts";
import { repositoryRoot } from "./wrangler-dev.ts";

const pom = join(repositoryRoot, "test", "java", "pom.xml");
const projectSources = join(repositoryRoot, "test", "java", "src", "test", "java");
/** Resolving from Maven Central the first time takes 10–30 s here. */
const resolveTimeoutMs = 300_000;

function requireCommand(command: string, install: string): void {
  try {
    execFileSync(command, ["-version"], { stdio: "ignore" });
  } catch {
    throw new Error(`${command} is not on the PATH; the Java client tests need it: ${install}`);
  }
}

let resolving: Promise<string> | undefined;

/** The directory holding the client's jars, resolved once per pom. */
export function javaLibrary(): Promise<string> {
  resolving ??= (async () => {
    requireCommand("java", "apt-get install -y openjdk-17-jdk-headless");
    requireCommand("mvn", "apt-get install -y maven");
    const hash = createHash("sha256").update(readFileSync(pom)).digest("hex").slice(0, 16);
    const directory = join(repositoryRoot, ".cache", "java", hash);
    const lib = join(directory, "lib");
    if (existsSync(join(directory, ".complete"))) return lib;
    const partial = `${lib}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    try {
      await promisify(execFile)("mvn", ["-B", "-q", "-f", pom, "dependency:copy-dependencies", "-DincludeScope=test", `-DoutputDirectory=${partial}`], {
        timeout: resolveTimeoutMs,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new Error(`resolving the Java Kafka client (test/java/pom.xml) from Maven Central failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    rmSync(lib, { recursive: true, force: true });
    renameSync(partial, lib);
    execFileSync("touch", [join(directory, ".complete")]);
    return lib;
  })();
  return resolving;
}

export type JavaRun = ChildRun;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(directory, entry.name)) : entry.name.endsWith(".java") ? [join(directory, entry.name)] : [],
  );
}

let compiling: Promise<{ lib: string; classes: string }> | undefined;

/** The project's compiled classes (its JUnit checks and its programs), compiled once per content of its sources. */
export function compiledProject(): Promise<{ lib: string; classes: string }> {
  compiling ??= (async () => {
    const lib = await javaLibrary();
    const sources = sourceFiles(projectSources).sort();
    const hash = createHash("sha256");
    for (const source of sources) hash.update(relative(projectSources, source)).update("\0").update(readFileSync(source));
    const classes = join(dirname(lib), `classes-${hash.digest("hex").slice(0, 16)}`);
    if (existsSync(join(classes, ".complete"))) return { lib, classes };
    const partial = `${classes}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    try {
      await promisify(execFile)("javac", ["-nowarn", "--release", "17", "-encoding", "UTF-8", "-d", partial, "-cp", join(lib, "*"), ...sources], { maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new Error(`compiling test/java/src/test/java failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    rmSync(classes, { recursive: true, force: true });
    renameSync(partial, classes);
    execFileSync("touch", [join(classes, ".complete")]);
    return { lib, classes };
  })();
  return compiling;
}

/** Runs a program of the project (`tributary.programs.<program>`); killed (SIGKILL) after `timeoutMs`, or once it prints a line holding `killAt`. */
export async function runJava(program: string, args: string[], timeoutMs = 120_000, killAt?: string): Promise<JavaRun> {
  const { lib, classes } = await compiledProject();
  const java = ["-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", `${classes}:${join(lib, "*")}`, `tributary.programs.${program}`, ...args];
  return runToEnd("java", java, `java ${program}`, timeoutMs, { killAt });
}

/** Runs a main class of the jars (Kafka's command-line tools, kafka-tools): `input` on its stdin. */
export async function runJavaMain(mainClass: string, args: string[], timeoutMs = 60_000, input?: string): Promise<JavaRun> {
  const lib = await javaLibrary();
  const java = ["-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", join(lib, "*"), mainClass, ...args];
  return runToEnd("java", java, `java ${mainClass}`, timeoutMs, { input });
}
