/**
 * A credential that never prints: `String(secret)`, `JSON.stringify`, template literals and
 * Node's `util.inspect` all show `<redacted>`. Only `reveal()` gives the value, and the one
 * caller is the transport building the Authorization header.
 */
export const redacted = "<redacted>";

/** Node's util.inspect hook, by its registered name: no `node:util` import, so browsers and Workers load this too. */
export const inspectSymbol = Symbol.for("nodejs.util.inspect.custom");

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return redacted;
  }

  toJSON(): string {
    return redacted;
  }

  [inspectSymbol](): string {
    return redacted;
  }
}
