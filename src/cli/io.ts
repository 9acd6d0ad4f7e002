/**
 * What the CLI touches of its process, passed in so that tests run it in-process: streams,
 * environment, whether a stream is a terminal, and the fetch its client uses.
 */
import type { Readable, Writable } from "node:stream";
import type { FetchFunction, WebSocketConstructor } from "../client/index.ts";

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Defaults to the global fetch. */
  fetch?: FetchFunction;
  /** The WebSocket class for streams; defaults to the runtime's (Node 22 has one, Node 20 none). */
  webSocket?: WebSocketConstructor;
  /** Called once with a function to run on Ctrl-C (SIGINT); returns an unsubscribe. */
  onInterrupt(handler: () => void): () => void;
}

/** The reader of the output went away (`tributary consume … | head -2`): stop, quietly, exit 0. */
export class OutputClosed extends Error {
  override readonly name = "OutputClosed";
}

/** The command stopped on Ctrl-C after saying what it had done: exit 130 (128 + SIGINT). */
export class Interrupted extends Error {
  override readonly name = "Interrupted";
}

/** A pipe whose reader is gone: EPIPE on the write that met it, ERR_STREAM_DESTROYED on any after. */
const closedCodes = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

/**
 * Writes and waits until the stream took the chunk, so a slow pipe bounds memory; a reader that
 * went away is an OutputClosed. (The stream's 'error' event needs a listener too, else Node
 * throws it: bin/tributary.js listens on stdout and stderr.)
 */
export async function write(stream: Writable, chunk: string | Uint8Array): Promise<void> {
  if (stream.destroyed || stream.writableEnded) throw new OutputClosed("the output was closed");
  await new Promise<void>((resolve, reject) => {
    stream.write(chunk, (error) => {
      if (!error) resolve();
      else reject(closedCodes.has((error as NodeJS.ErrnoException).code ?? "") ? new OutputClosed("the output was closed", { cause: error }) : error);
    });
  });
}
