/**
 * kcat (Debian's, librdkafka 2.0.2: /usr/bin/kcat; `npm test` installs it when missing) for e2e
 * tests: runs it with `args`, writes `input` to its stdin and closes it, and answers what it
 * printed; a non-zero exit or its time bound rejects with its stderr.
 *
 *   await kcat(["-b", gateway.address, "-P", "-t", "orders"], "one\ntwo\n");
 */
import { execFile } from "node:child_process";

export const kcatPath = "/usr/bin/kcat";

export function kcat(args: string[], input = "", timeoutMs = 60_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(kcatPath, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr.slice(-4000)}`)) : resolve({ stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}
