/**
 * An Avro schema as the registry holds it once parsed (Avro 1.11 specification, "Schema
 * Declaration"): a graph, not a tree, since a named type (record, enum, fixed) is one object
 * wherever its name is used, a record's own fields included (recursive types). Names are full
 * names (namespace.name). Attributes the specification does not define (logicalType, custom
 * properties) are kept in `props` for the normalized form and ignored by compatibility, as
 * Avro's schema resolution ignores them.
 */

export const avroPrimitives = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"] as const;
export type AvroPrimitiveName = (typeof avroPrimitives)[number];

export type Props = Record<string, unknown>;

export interface AvroPrimitive {
  kind: "primitive";
  type: AvroPrimitiveName;
  props: Props;
}

export interface AvroField {
  name: string;
  aliases: string[];
  type: AvroType;
  /** The default as written (JSON), present only when the field has one: `null` is a default. */
  default?: { value: unknown };
  order?: "ascending" | "descending" | "ignore";
  doc?: string;
  props: Props;
}

interface Named {
  /** The full name: namespace.name, or the name alone in the null namespace. */
  name: string;
  /** Aliases as full names (an unqualified alias takes the type's namespace). */
  aliases: string[];
  doc?: string;
  props: Props;
}

export interface AvroRecord extends Named {
  kind: "record";
  /** "record" or "error" (a protocol's error type reads as a record). */
  type: "record" | "error";
  fields: AvroField[];
}

export interface AvroEnum extends Named {
  kind: "enum";
  symbols: string[];
  /** The symbol a reader uses for a writer's symbol it does not know (Avro 1.9). */
  default?: string;
}

export interface AvroFixed extends Named {
  kind: "fixed";
  size: number;
}

export interface AvroArray {
  kind: "array";
  items: AvroType;
  props: Props;
}

export interface AvroMap {
  kind: "map";
  values: AvroType;
  props: Props;
}

export interface AvroUnion {
  kind: "union";
  branches: AvroType[];
}

export type AvroNamed = AvroRecord | AvroEnum | AvroFixed;
export type AvroType = AvroPrimitive | AvroNamed | AvroArray | AvroMap | AvroUnion;

/** The named types a schema may use without defining them: those its references define, by full name. */
export type NamedTypes = ReadonlyMap<string, AvroNamed>;

/** What a union branch is matched by: its type, or for a named type its full name (no two branches may share one). */
export function branchKey(type: AvroType): string {
  switch (type.kind) {
    case "primitive":
      return type.type;
    case "record":
    case "enum":
    case "fixed":
      return type.name;
    case "array":
    case "map":
    case "union":
      return type.kind;
  }
}

export function isNamed(type: AvroType): type is AvroNamed {
  return type.kind === "record" || type.kind === "enum" || type.kind === "fixed";
}

/** The last part of a full name. */
export function simpleName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf(".") + 1);
}
