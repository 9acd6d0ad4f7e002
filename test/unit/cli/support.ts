import { PassThrough, Readable, type Writable } from "node:stream";
import { main, type CliIo } from "../../../src/cli/main.ts";
import { FakeServer } from "../client/support/fake-server.ts";

export interface CliRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

function collect(stream: PassThrough): () => Buffer {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks);
}

export interface CliOptions {
  stdin?: string | Buffer | Buffer[] | AsyncIterable<Buffer>;
  env?: Record<string, string>;
  stderrIsTTY?: boolean;
  /** Instead of a stream that collects what is printed (then `stdout` of the run is empty). */
  stdout?: Writable;
  /** Instead of the server's fetch (to change its answers). */
  fetch?: CliIo["fetch"];
  /** A WebSocket class for streams (the fake server's, `server.streams.WebSocket`); none by default, as a custom fetch has none. */
  webSocket?: CliIo["webSocket"];
  /** Gets the CLI's Ctrl-C handler, to call it as a SIGINT would. */
  onInterrupt?: (handler: () => void) => void;
}

/** Runs the CLI in-process against `server`, with `stdin` as its input. */
export async function cli(server: FakeServer, argv: string[], options: CliOptions = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const stdin = options.stdin;
  const input = stdin === undefined ? [] : Array.isArray(stdin) || (typeof stdin === "object" && Symbol.asyncIterator in stdin) ? stdin : [Buffer.from(stdin as string)];
  const io: CliIo = {
    stdin: Readable.from(input),
    stdout: options.stdout ?? stdout,
    stderr,
    env: { TRIBUTARY_URL: "http://tributary.test", ...options.env },
    stdoutIsTTY: false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    fetch: options.fetch ?? server.fetch,
    ...(options.webSocket === undefined ? {} : { webSocket: options.webSocket }),
    onInterrupt: (handler) => {
      options.onInterrupt?.(handler);
      return () => {};
    },
  };
  const code = await main(argv, io);
  return { code, stdout: out(), stderr: err().toString("utf8") };
}

export { FakeServer };
