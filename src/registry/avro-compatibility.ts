import { simpleName, type AvroNamed, type AvroPrimitiveName, type AvroType } from "./avro-types.ts";

/**
 * Whether data written with one Avro schema can be read with another: Avro's schema resolution
 * (Avro 1.11 specification, "Schema Resolution"), the rule each compatibility level applies in
 * one direction or both (src/registry/compatibility.ts). Each check names the rule it applies;
 * an incompatibility is reported with where in the reader's schema it is (a JSON pointer) and
 * why, as Confluent's `verbose=true` answers. Recursive types are compared once per pair of
 * types: a pair met again while it is being compared is taken as compatible, which is sound
 * because any incompatibility inside it is reported by the first comparison.
 */

export type AvroIncompatibility =
  | "NAME_MISMATCH"
  | "FIXED_SIZE_MISMATCH"
  | "MISSING_ENUM_SYMBOLS"
  | "READER_FIELD_MISSING_DEFAULT_VALUE"
  | "TYPE_MISMATCH"
  | "MISSING_UNION_BRANCH";

export interface CompatibilityIssue {
  kind: AvroIncompatibility;
  /** Where in the reader's schema (JSON pointer). */
  location: string;
  message: string;
}

/**
 * Type promotions: the writer's type (key) a reader of each listed type accepts ("Schema
 * Resolution": int to long, float, double; long to float, double; float to double; string and
 * bytes to each other).
 */
const promotions: Record<AvroPrimitiveName, readonly AvroPrimitiveName[]> = {
  null: [],
  boolean: [],
  int: ["long", "float", "double"],
  long: ["float", "double"],
  float: ["double"],
  double: [],
  bytes: ["string"],
  string: ["bytes"],
};

function describe(type: AvroType): string {
  switch (type.kind) {
    case "primitive":
      return type.type;
    case "record":
    case "enum":
    case "fixed":
      return `${type.kind} ${type.name}`;
    default:
      return type.kind;
  }
}

/**
 * Named types match when their unqualified names are equal, or when the reader lists the
 * writer's full name among its aliases (as Avro's Java SchemaCompatibility decides).
 */
function namesMatch(reader: AvroNamed, writer: AvroNamed): boolean {
  return simpleName(reader.name) === simpleName(writer.name) || reader.aliases.includes(writer.name);
}

class Checker {
  readonly issues: CompatibilityIssue[] = [];
  readonly #compared = new Map<AvroType, Set<AvroType>>();
  /** A scratch checker's parent: the pairs it is comparing count as compared here too (else recursion never ends). */
  readonly #parent: Checker | undefined;

  constructor(parent?: Checker) {
    this.#parent = parent;
  }

  #wasCompared(reader: AvroType, writer: AvroType): boolean {
    if (this.#compared.get(reader)?.has(writer)) return true;
    return this.#parent !== undefined && this.#parent.#wasCompared(reader, writer);
  }

  #issue(kind: AvroIncompatibility, location: string, message: string): void {
    this.issues.push({ kind, location: location || "/", message });
  }

  /** Whether `reader` reads what `writer` wrote, reporting why not. */
  check(reader: AvroType, writer: AvroType, location: string): boolean {
    if (this.#wasCompared(reader, writer)) return true;
    let seen = this.#compared.get(reader);
    if (!seen) this.#compared.set(reader, (seen = new Set()));
    seen.add(writer);
    // A writer's union: every branch it may have written must be readable.
    if (writer.kind === "union") {
      let all = true;
      for (const branch of writer.branches) all = this.#readsBranch(reader, branch, location) && all;
      return all;
    }
    if (reader.kind === "union") return this.#readsBranch(reader, writer, location);
    return this.#same(reader, writer, location);
  }

  /** A writer's (non-union) type read by the reader: a reader's union needs a branch that reads it. */
  #readsBranch(reader: AvroType, writer: AvroType, location: string): boolean {
    if (reader.kind !== "union") return this.check(reader, writer, location);
    // Tried on a scratch checker: failing branches must not report.
    const match = reader.branches.findIndex((branch) => new Checker(this).check(branch, writer, location));
    if (match >= 0) return this.check(reader.branches[match]!, writer, `${location}/${match}`);
    this.#issue("MISSING_UNION_BRANCH", location, `the reader's union has no branch that reads the writer's ${describe(writer)}`);
    return false;
  }

  #same(reader: AvroType, writer: AvroType, location: string): boolean {
    if (reader.kind === "primitive" && writer.kind === "primitive") {
      if (reader.type === writer.type || promotions[writer.type].includes(reader.type)) return true;
      this.#issue("TYPE_MISMATCH", location, `the reader's ${reader.type} cannot read the writer's ${writer.type}`);
      return false;
    }
    if (reader.kind !== writer.kind) {
      this.#issue("TYPE_MISMATCH", location, `the reader's ${describe(reader)} cannot read the writer's ${describe(writer)}`);
      return false;
    }
    switch (reader.kind) {
      case "array":
        return this.check(reader.items, (writer as typeof reader).items, `${location}/items`);
      case "map":
        return this.check(reader.values, (writer as typeof reader).values, `${location}/values`);
      case "fixed":
      case "enum":
      case "record": {
        const named = writer as AvroNamed;
        if (!namesMatch(reader, named)) {
          this.#issue("NAME_MISMATCH", `${location}/name`, `the reader's ${describe(reader)} does not match the writer's ${describe(named)} (nor names it among its aliases)`);
          return false;
        }
        if (reader.kind === "fixed") return this.#fixed(reader.size, (named as typeof reader).size, location);
        if (reader.kind === "enum") return this.#enum(reader, named as typeof reader, location);
        return this.#record(reader, named as typeof reader, location);
      }
    }
    return true;
  }

  #fixed(readerSize: number, writerSize: number, location: string): boolean {
    if (readerSize === writerSize) return true;
    this.#issue("FIXED_SIZE_MISMATCH", `${location}/size`, `the reader's fixed size ${readerSize} is not the writer's ${writerSize}`);
    return false;
  }

  /** A writer's symbol the reader lacks reads as the reader's default, or fails without one. */
  #enum(reader: AvroNamed & { kind: "enum" }, writer: AvroNamed & { kind: "enum" }, location: string): boolean {
    if (reader.default !== undefined) return true;
    const missing = writer.symbols.filter((symbol) => !reader.symbols.includes(symbol));
    if (missing.length === 0) return true;
    this.#issue("MISSING_ENUM_SYMBOLS", `${location}/symbols`, `the reader's enum ${reader.name} lacks the writer's symbols ${missing.join(", ")} and has no default`);
    return false;
  }

  /**
   * Each reader field reads the writer's field of its name (or of one of its aliases); a reader
   * field the writer lacks takes its default, and fails without one. Writer fields the reader
   * lacks are skipped.
   */
  #record(reader: AvroNamed & { kind: "record" }, writer: AvroNamed & { kind: "record" }, location: string): boolean {
    let all = true;
    // By name, so a wide record (thousands of fields) is compared in linear time.
    const writerFields = new Map(writer.fields.map((field) => [field.name, field]));
    reader.fields.forEach((field, index) => {
      const names = [field.name, ...field.aliases];
      const written = names.map((name) => writerFields.get(name)).find((found) => found !== undefined);
      if (written) {
        all = this.check(field.type, written.type, `${location}/fields/${index}/type`) && all;
      } else if (field.default === undefined) {
        this.#issue("READER_FIELD_MISSING_DEFAULT_VALUE", `${location}/fields/${index}`, `the reader's field ${field.name} of ${reader.name} has no default and the writer has no such field`);
        all = false;
      }
    });
    return all;
  }
}

/** Why `reader` cannot read what `writer` wrote; empty when it can. */
export function avroReadIssues(reader: AvroType, writer: AvroType): CompatibilityIssue[] {
  const checker = new Checker();
  checker.check(reader, writer, "");
  return checker.issues;
}
