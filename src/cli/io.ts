/**
 * What the CLI touches of its process, passed in so that tests run it in-process: streams,
 * environment, whether a stream is a terminal, and the fetch its client uses.
 */
import type { Readable, Writable } from "node:stream";
import type { FetchFunction } from "../client/index.ts";

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Defaults to the global fetch. */
  fetch?: FetchFunction;
  /** Called once with a function to run on Ctrl-C (SIGINT); returns an unsubscribe. */
  onInterrupt(handler: () => void): () => void;
}

/** Writes, waiting for 'drain' when the stream's buffer is full, so a slow pipe bounds memory. */
export async function write(stream: Writable, chunk: string | Uint8Array): Promise<void> {
  if (stream.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      stream.off("drain", onDrain);
      stream.off("error", done);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    stream.once("drain", onDrain);
    stream.once("error", done);
  });
}
