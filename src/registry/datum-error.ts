/**
 * Why a key's or value's data does not conform to its schema, and where: a JSON pointer into the
 * datum ("" for its root). Thrown by the Avro datum reader (src/registry/avro-datum.ts) and the
 * JSON Schema validator (src/registry/json-schema-validate.ts); full validation turns it into
 * 400 INVALID_RECORD naming the record (docs/schema-registry.md).
 */
export class DatumError extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`at ${path === "" ? "/" : path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

/** A JSON pointer's token: "~" and "/" escaped (RFC 6901). */
export function pointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}
