/**
 * What the client says about itself while it works: a retry and why, a consumer rejoining its
 * group. The `logger` option takes anything shaped like `console` (pino, winston and kafkajs's
 * loggers fit too); `logLevel` drops what is below it. By default warnings and errors go to
 * `console`, and a retry is a warning only once its call has been retrying for a while
 * (retry.ts), so a client that rides out a blip stays quiet and one whose server is down says so.
 *
 * A line never holds the token: requests are named by method and path, errors by code and
 * message (the server's messages carry no credentials either).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured fields beside the message, e.g. `{ request, code, attempt, delayMs }`. */
export type LogFields = Record<string, unknown>;

/** `console` fits: each level is a function of the message and its fields. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** The default: `tributary: <message>` on the console, without the fields. */
export const consoleLogger: Logger = Object.freeze({
  debug: (message: string) => console.debug(`tributary: ${message}`),
  info: (message: string) => console.info(`tributary: ${message}`),
  warn: (message: string) => console.warn(`tributary: ${message}`),
  error: (message: string) => console.error(`tributary: ${message}`),
});

const rank: Record<LogLevel | "nothing", number> = { debug: 0, info: 1, warn: 2, error: 3, nothing: 4 };

/** The client's one way to log: levels below `logLevel` are dropped, a logger that throws never breaks a call. */
export class ClientLog {
  readonly #logger: Logger;
  readonly #minimum: number;

  constructor(logger: Logger = consoleLogger, logLevel: LogLevel | "nothing" = "warn") {
    if (!Object.hasOwn(rank, logLevel)) throw new RangeError(`logLevel must be one of ${Object.keys(rank).join(", ")}, got ${String(logLevel)}`);
    for (const level of ["debug", "info", "warn", "error"] as const) {
      if (typeof logger?.[level] !== "function") throw new TypeError(`logger.${level} must be a function (console fits)`);
    }
    this.#logger = logger;
    this.#minimum = rank[logLevel];
  }

  log(level: LogLevel, message: string, fields?: LogFields): void {
    if (rank[level] < this.#minimum) return;
    try {
      this.#logger[level](message, fields);
    } catch {
      // A broken logger must not turn a retry into a failure.
    }
  }
}
