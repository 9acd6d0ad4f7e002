/**
 * When a WebSocket subscriber returns credit (docs/api.md, "WebSocket on a partition"): the
 * rule the client follows, pure, so that the no-stall argument below is tested against the
 * leader's window (src/log/subscriber-window.ts) in one place.
 *
 * Right after opening, the client grants the window up to its largest (`opening()`: one
 * message of largest − starting window). Then it returns the bytes of the frames it has
 * processed, in one message, once they reach half the largest window (`processed()`): one
 * message per ~2 MiB of frames instead of one per frame (incoming WebSocket messages are
 * billed 20 to a request).
 *
 * No stall: the leader's room is start + credit − sent. With the opening grant and every
 * processed byte returned but those held (`held` < half the largest window), a client that
 * has processed everything it was sent leaves the leader a room of largest − held, which is
 * above half the largest window and so at least the starting window: a frame that fits goes,
 * and a larger one (up to any size) goes alone (`partsThatFit`). The client's credit never
 * takes the room past the largest window, so none of it is clamped away.
 */
import { streamWindowBytes, streamWindowBytesMax } from "../limits.ts";

export interface CreditWindow {
  /** The window a socket starts with (streamWindowBytes). */
  startBytes: number;
  /** The largest window credit may take it to (streamWindowBytesMax). */
  maxBytes: number;
}

export const serverCreditWindow: CreditWindow = { startBytes: streamWindowBytes, maxBytes: streamWindowBytesMax };

export class CreditLedger {
  readonly #window: CreditWindow;
  /** Bytes of processed frames not returned yet. */
  #held = 0;

  constructor(window: CreditWindow = serverCreditWindow) {
    this.#window = window;
    // Held bytes stay below returnAtBytes, so a caught-up client leaves at least the starting window.
    if (this.returnAtBytes > window.maxBytes - window.startBytes) throw new RangeError("the largest window must be at least twice the starting one");
  }

  /** Processed bytes not returned yet (always below `returnAtBytes`). */
  get held(): number {
    return this.#held;
  }

  /** Held bytes at which they are returned: half the largest window. */
  get returnAtBytes(): number {
    return Math.floor(this.#window.maxBytes / 2);
  }

  /** The credit to send right after opening (0: none), growing the window to its largest. */
  opening(): number {
    return this.#window.maxBytes - this.#window.startBytes;
  }

  /** After the consumer has processed a frame of `bytes`: the credit to send now, or 0 for none. */
  processed(bytes: number): number {
    this.#held += bytes;
    if (this.#held < this.returnAtBytes) return 0;
    const credit = this.#held;
    this.#held = 0;
    return credit;
  }
}
