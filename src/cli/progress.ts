/**
 * A one-line progress display on a terminal: records so far and records/s, redrawn in place at
 * most every 200 ms, and only once the run has lasted half a second (small inputs stay quiet).
 */
import type { Writable } from "node:stream";
import { formatBytes, formatCount } from "./table.ts";

const redrawMs = 200;
const quietMs = 500;

export class Progress {
  readonly #stream: Writable;
  readonly #enabled: boolean;
  readonly #verb: string;
  readonly #startedMs = Date.now();
  #lastDrawMs = 0;
  #drawn = false;

  constructor(stream: Writable, enabled: boolean, verb: string) {
    this.#stream = stream;
    this.#enabled = enabled;
    this.#verb = verb;
  }

  get elapsedMs(): number {
    return Date.now() - this.#startedMs;
  }

  update(records: number, bytes: number): void {
    if (!this.#enabled) return;
    const now = Date.now();
    if (now - this.#startedMs < quietMs || now - this.#lastDrawMs < redrawMs) return;
    this.#lastDrawMs = now;
    this.#drawn = true;
    const rate = records / Math.max((now - this.#startedMs) / 1000, 0.001);
    this.#stream.write(`\r\x1b[K${this.#verb} ${formatCount(records)} records (${formatBytes(bytes)}) · ${formatCount(rate)} records/s`);
  }

  /** Clears the progress line, if one was drawn. */
  finish(): void {
    if (this.#drawn) this.#stream.write("\r\x1b[K");
  }
}
