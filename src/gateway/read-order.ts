/**
 * The order in which this process read its clients' request frames, across every connection:
 * each frame gets the next number when the socket delivers it, before it waits for its turn.
 * A transaction's end records the number at which it took effect, and a request read before
 * it is never counted into the next transaction, however long it waited in the gateway
 * (docs/gateway.md, Transactions).
 */
let last = 0;

/** The number of the frame read now. */
export function nextReadOrder(): number {
  last += 1;
  return last;
}

/** The number of the last frame read: every frame read from now on gets a larger one. */
export function lastReadOrder(): number {
  return last;
}
