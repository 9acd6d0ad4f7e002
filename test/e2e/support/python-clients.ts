/**
 * Python Kafka clients for e2e tests: test/python/requirements.txt pins them; the first call
 * makes a virtual environment under .cache/python/<the requirements' hash> (git-ignored) and
 * installs them from PyPI, and later calls and runs reuse it. A program of test/python/ runs
 * with that environment's interpreter. Needs `python3` (3.9+, with its venv module) on the PATH;
 * without it, it fails at once naming what to install.
 *
 *   const { stdout } = await runPython("list_topics.py", [gateway.address]);
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { runToEnd, type ChildRun } from "./child-run.ts";
import { repositoryRoot } from "./wrangler-dev.ts";

const pythonSources = join(repositoryRoot, "test", "python");
const requirements = join(pythonSources, "requirements.txt");
/** Creating the environment and installing from PyPI the first time takes 10–60 s here. */
const installTimeoutMs = 300_000;

let installing: Promise<string> | undefined;

/** The environment's interpreter, made once per requirements file. */
export function pythonInterpreter(): Promise<string> {
  installing ??= (async () => {
    try {
      execFileSync("python3", ["-c", "import venv"], { stdio: "ignore" });
    } catch {
      throw new Error("python3 with its venv module is not on the PATH; the Python client tests need it: apt-get install -y python3 python3-venv");
    }
    const hash = createHash("sha256").update(readFileSync(requirements)).digest("hex").slice(0, 16);
    const directory = join(repositoryRoot, ".cache", "python", hash);
    const interpreter = join(directory, "bin", "python");
    if (existsSync(join(directory, ".complete"))) return interpreter;
    // A virtual environment names its own path in its scripts, so it is made where it stays;
    // `.complete` is written last: an install cut short is made again from scratch.
    rmSync(directory, { recursive: true, force: true });
    const run = promisify(execFile);
    try {
      await run("python3", ["-m", "venv", directory], { timeout: installTimeoutMs });
      await run(interpreter, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements], { timeout: installTimeoutMs, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      rmSync(directory, { recursive: true, force: true });
      throw new Error(`installing test/python/requirements.txt from PyPI failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    writeFileSync(join(directory, ".complete"), "");
    return interpreter;
  })();
  return installing;
}

export type PythonRun = ChildRun;

/** Runs test/python/<program> in the environment; killed (SIGKILL) after `timeoutMs`. */
export async function runPython(program: string, args: string[], timeoutMs = 120_000): Promise<PythonRun> {
  return runToEnd(await pythonInterpreter(), [join(pythonSources, program), ...args], `python ${program}`, timeoutMs);
}
