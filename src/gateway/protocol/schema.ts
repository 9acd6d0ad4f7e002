/**
 * How a Kafka message layout is written down (messages-*.ts), as Kafka's JSON message
 * definitions say it: a field is `[name, type, versions, extra?]` where `versions` is
 * "N+", "N-M", "N" or "none"; `type` is a primitive, "[]<primitive>", "struct" or "[]struct"
 * (with `fields`); `extra.nullable` gives the versions where it may be null, `extra.tag` and
 * `extra.tagged` make it a tagged field in those (flexible) versions, `extra.default` is its
 * value when absent (Kafka's "default", as a string).
 */
export type PrimitiveType = "bool" | "int8" | "int16" | "uint16" | "int32" | "uint32" | "int64" | "float64" | "string" | "bytes" | "uuid" | "records";

export type FieldType = PrimitiveType | `[]${PrimitiveType}` | "struct" | "[]struct";

export interface FieldExtra {
  nullable?: string;
  tag?: number;
  tagged?: string;
  default?: string;
  fields?: readonly FieldSpec[];
}

export type FieldSpec = readonly [name: string, type: FieldType, versions: string, extra?: FieldExtra];

export interface MessageSchema {
  apiKey: number;
  name: string;
  /** The versions the gateway reads and writes: [lowest, highest]. */
  versions: readonly [number, number];
  /** The first flexible (compact, tagged-field) version, or null when none is. */
  flexibleFrom: number | null;
  request: readonly FieldSpec[];
  response: readonly FieldSpec[];
}

/** Whether `version` lies in a versions string ("3+", "0-4", "7", "none"). */
export function inVersions(versions: string | undefined, version: number): boolean {
  if (versions === undefined || versions === "none") return false;
  const match = /^(\d+)(?:(\+)|-(\d+))?$/.exec(versions);
  if (match === null) throw new Error(`bad versions string ${JSON.stringify(versions)}`);
  const low = Number(match[1]);
  if (match[2] === "+") return version >= low;
  const high = match[3] === undefined ? low : Number(match[3]);
  return version >= low && version <= high;
}
