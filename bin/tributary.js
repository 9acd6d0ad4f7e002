#!/usr/bin/env node
// The `tributary` command (package.json "bin"): runs the CLI compiled by `npm run build`
// (tsconfig.build.json → dist/), which `npm install` runs through the "prepare" script.
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("tributary: dist/cli/main.js is missing; run `npm run build` in the repository first\n");
  process.exit(1);
}
const { main } = await import(entry.href);

// A write to a pipe whose reader went away (`| head`) fails with EPIPE: each write's callback
// tells the command (which then stops quietly, exit 0); without a listener the stream's 'error'
// event would also throw, with a stack trace.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

let interrupted = false;
const code = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  onInterrupt(handler) {
    const onSignal = () => {
      // A second Ctrl-C does not wait for the graceful stop.
      if (interrupted) process.exit(130);
      interrupted = true;
      handler();
    };
    process.on("SIGINT", onSignal);
    return () => process.off("SIGINT", onSignal);
  },
});
process.exitCode = code;
