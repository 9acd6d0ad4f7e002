/**
 * What the CLI prints on stderr while the client works: each retry as one line a person can
 * act on — `server unreachable (connection refused at http://127.0.0.1:8787); retrying in 2 s…`
 * — and the client's other notes (a consumer rejoining its group) as they come. Debug lines
 * are dropped; the client never puts a token in a line.
 */
import type { Logger, LogFields } from "../client/index.ts";
import type { Writable } from "node:stream";

function seconds(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Number((ms / 1_000).toFixed(1))} s`;
}

/** One line per client log entry; a retry line says what failed and when the next attempt is. */
export function retryLine(message: string, fields: LogFields | undefined): string {
  const { request, code, detail, delayMs } = fields ?? {};
  if (typeof request !== "string" || typeof delayMs !== "number") return message;
  if (code === "NETWORK_EXCEPTION") return `server unreachable (${String(detail)}); retrying in ${seconds(delayMs)}…`;
  return `${request}: ${String(code)}: ${String(detail)}; retrying in ${seconds(delayMs)}…`;
}

export function stderrLogger(stderr: Writable): Logger {
  const print = (message: string, fields?: LogFields) => void stderr.write(`${retryLine(message, fields)}\n`);
  return { debug: () => {}, info: print, warn: print, error: print };
}
