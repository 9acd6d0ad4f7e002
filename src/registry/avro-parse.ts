import { registryAvroNestingDepthMax } from "../limits.ts";
import { invalidDefaultReason } from "./avro-defaults.ts";
import {
  avroPrimitives,
  branchKey,
  type AvroField,
  type AvroNamed,
  type AvroPrimitiveName,
  type AvroType,
  type NamedTypes,
  type Props,
} from "./avro-types.ts";
import { RegistryError } from "./registry-errors.ts";

/**
 * Parses an Avro schema's JSON text (Avro 1.11 specification, "Schema Declaration" and "Names")
 * into the graph of src/registry/avro-types.ts, checking what Avro's own parser checks: names,
 * unique field names and enum symbols, fixed sizes, union branches (no union in a union, no two
 * branches of one type or name), and that every default is a value of its type. An invalid
 * schema is 422 42201 with the reason, as Confluent answers. `known` are the named types the
 * schema's references define; the types it defines are added to `defined`, for the schemas that
 * reference it. Pure, no code generation (workerd forbids it).
 */

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const primitiveNames: ReadonlySet<string> = new Set(avroPrimitives);
/** Attributes the specification defines, per place; anything else is kept as a property. */
const namedKeys = new Set(["type", "name", "namespace", "aliases", "doc"]);
const recordKeys = new Set([...namedKeys, "fields"]);
const enumKeys = new Set([...namedKeys, "symbols", "default"]);
const fixedKeys = new Set([...namedKeys, "size"]);
const fieldKeys = new Set(["name", "type", "default", "aliases", "order", "doc"]);

function invalid(message: string): never {
  throw new RegistryError("INVALID_SCHEMA", `Invalid schema: ${message}`);
}

function propsOf(object: Record<string, unknown>, defined: ReadonlySet<string>): Props {
  const props: Props = {};
  for (const [key, value] of Object.entries(object)) if (!defined.has(key)) props[key] = value;
  return props;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Parser {
  /** Every named type this schema and its references define, by full name. */
  readonly names = new Map<string, AvroNamed>();
  readonly definedHere = new Map<string, AvroNamed>();

  constructor(known: NamedTypes) {
    for (const [name, type] of known) this.names.set(name, type);
  }

  parse(json: unknown, namespace: string, depth: number): AvroType {
    if (depth > registryAvroNestingDepthMax) invalid(`types nest deeper than ${registryAvroNestingDepthMax}`);
    if (typeof json === "string") return this.#byName(json, namespace);
    if (Array.isArray(json)) return this.#union(json, namespace, depth);
    if (!isObject(json)) invalid(`${JSON.stringify(json)} is not a schema: a type is a name, an object or an array (a union)`);
    const type = json.type;
    if (typeof type === "string" && primitiveNames.has(type)) {
      return { kind: "primitive", type: type as AvroPrimitiveName, props: propsOf(json, new Set(["type"])) };
    }
    switch (type) {
      case "record":
      case "error":
        return this.#record(json, type, namespace, depth);
      case "enum":
        return this.#enum(json, namespace);
      case "fixed":
        return this.#fixed(json, namespace);
      case "array":
        if (!("items" in json)) invalid("an array has no \"items\"");
        return { kind: "array", items: this.parse(json.items, namespace, depth + 1), props: propsOf(json, new Set(["type", "items"])) };
      case "map":
        if (!("values" in json)) invalid("a map has no \"values\"");
        return { kind: "map", values: this.parse(json.values, namespace, depth + 1), props: propsOf(json, new Set(["type", "values"])) };
      default:
        // {"type": "com.example.Name"} or {"type": [..]} or {"type": {..}}: the type it names or holds.
        if (type === undefined) invalid(`${JSON.stringify(json).slice(0, 200)} has no "type"`);
        return this.parse(type, namespace, depth + 1);
    }
  }

  #byName(name: string, namespace: string): AvroType {
    if (primitiveNames.has(name)) return { kind: "primitive", type: name as AvroPrimitiveName, props: {} };
    const candidates = name.includes(".") ? [name] : namespace ? [`${namespace}.${name}`, name] : [name];
    for (const candidate of candidates) {
      const named = this.names.get(candidate);
      if (named) return named;
    }
    return invalid(`undefined name: ${JSON.stringify(name)}`);
  }

  #union(branches: unknown[], namespace: string, depth: number): AvroType {
    const types: AvroType[] = [];
    const keys = new Set<string>();
    for (const branch of branches) {
      const type = this.parse(branch, namespace, depth + 1);
      if (type.kind === "union") invalid("a union may not immediately contain another union");
      const key = branchKey(type);
      if (keys.has(key)) invalid(`a union holds ${key} twice`);
      keys.add(key);
      types.push(type);
    }
    return { kind: "union", branches: types };
  }

  /** The full name and namespace a named type's declaration gives it, checked. */
  #fullName(json: Record<string, unknown>, namespace: string): { name: string; namespace: string } {
    const name = json.name;
    if (typeof name !== "string") invalid(`a ${String(json.type)} has no "name"`);
    let ownNamespace = namespace;
    if (json.namespace !== undefined) {
      if (typeof json.namespace !== "string" && json.namespace !== null) invalid(`the namespace of ${name} is not a string`);
      ownNamespace = json.namespace ?? "";
    }
    const full = name.includes(".") ? name : ownNamespace ? `${ownNamespace}.${name}` : name;
    for (const part of full.split(".")) if (!namePattern.test(part)) invalid(`${JSON.stringify(full)} is not a valid Avro name`);
    if (primitiveNames.has(full)) invalid(`${full} is a primitive type's name and cannot name a ${String(json.type)}`);
    if (this.names.has(full)) invalid(`${full} is defined twice`);
    return { name: full, namespace: full.includes(".") ? full.slice(0, full.lastIndexOf(".")) : "" };
  }

  #aliases(value: unknown, namespace: string, of: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((alias) => typeof alias === "string")) invalid(`the aliases of ${of} are not an array of names`);
    return value.map((alias: string) => (alias.includes(".") || !namespace ? alias : `${namespace}.${alias}`));
  }

  #define(type: AvroNamed): void {
    this.names.set(type.name, type);
    this.definedHere.set(type.name, type);
  }

  #record(json: Record<string, unknown>, kind: "record" | "error", namespace: string, depth: number): AvroType {
    const { name, namespace: own } = this.#fullName(json, namespace);
    if (!Array.isArray(json.fields)) invalid(`record ${name} has no "fields" array`);
    const record: AvroNamed & { kind: "record" } = {
      kind: "record",
      type: kind,
      name,
      aliases: this.#aliases(json.aliases, own, name),
      fields: [],
      props: propsOf(json, recordKeys),
      ...(typeof json.doc === "string" ? { doc: json.doc } : {}),
    };
    this.#define(record); // before the fields: a field may name its own record
    const fieldNames = new Set<string>();
    for (const field of json.fields as unknown[]) {
      const parsed = this.#field(field, own, name, depth);
      if (fieldNames.has(parsed.name)) invalid(`record ${name} has two fields named ${parsed.name}`);
      fieldNames.add(parsed.name);
      record.fields.push(parsed);
    }
    return record;
  }

  #field(json: unknown, namespace: string, record: string, depth: number): AvroField {
    if (!isObject(json)) invalid(`a field of ${record} is not an object`);
    const name = json.name;
    if (typeof name !== "string" || !namePattern.test(name)) invalid(`a field of ${record} has no valid "name"`);
    if (!("type" in json)) invalid(`field ${record}.${name} has no "type"`);
    const type = this.parse(json.type, namespace, depth + 1);
    const field: AvroField = { name, aliases: this.#fieldAliases(json.aliases, `${record}.${name}`), type, props: propsOf(json, fieldKeys) };
    if ("default" in json) {
      const reason = invalidDefaultReason(type, json.default);
      if (reason !== undefined) invalid(`the default of field ${record}.${name} is not a ${reason}`);
      field.default = { value: json.default };
    }
    if (json.order !== undefined) {
      if (json.order !== "ascending" && json.order !== "descending" && json.order !== "ignore") invalid(`field ${record}.${name} has an unknown order`);
      field.order = json.order;
    }
    if (typeof json.doc === "string") field.doc = json.doc;
    return field;
  }

  #fieldAliases(value: unknown, of: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((alias) => typeof alias === "string")) invalid(`the aliases of ${of} are not an array of names`);
    return value as string[];
  }

  #enum(json: Record<string, unknown>, namespace: string): AvroType {
    const { name, namespace: own } = this.#fullName(json, namespace);
    const symbols = json.symbols;
    if (!Array.isArray(symbols) || !symbols.every((symbol) => typeof symbol === "string" && namePattern.test(symbol))) {
      invalid(`enum ${name} has no "symbols" array of valid names`);
    }
    if (new Set(symbols).size !== symbols.length) invalid(`enum ${name} has a symbol twice`);
    if (json.default !== undefined && !(typeof json.default === "string" && symbols.includes(json.default))) {
      invalid(`the default of enum ${name} is not one of its symbols`);
    }
    const type: AvroNamed = {
      kind: "enum",
      name,
      aliases: this.#aliases(json.aliases, own, name),
      symbols: symbols as string[],
      props: propsOf(json, enumKeys),
      ...(typeof json.default === "string" ? { default: json.default } : {}),
      ...(typeof json.doc === "string" ? { doc: json.doc } : {}),
    };
    this.#define(type);
    return type;
  }

  #fixed(json: Record<string, unknown>, namespace: string): AvroType {
    const { name, namespace: own } = this.#fullName(json, namespace);
    const size = json.size;
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) invalid(`fixed ${name} has no "size" that is a whole number`);
    const type: AvroNamed = { kind: "fixed", name, aliases: this.#aliases(json.aliases, own, name), size, props: propsOf(json, fixedKeys) };
    if (typeof json.doc === "string") type.doc = json.doc;
    this.#define(type);
    return type;
  }
}

export interface ParsedAvro {
  type: AvroType;
  /** The named types this schema defines itself (not those of its references), for schemas that reference it. */
  defines: NamedTypes;
}

/** Parses an Avro schema's text; `known` are the named types its references define. */
export function parseAvro(text: string, known: NamedTypes = new Map()): ParsedAvro {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    invalid(`not JSON: ${(error as Error).message}`);
  }
  const parser = new Parser(known);
  const type = parser.parse(json, "", 0);
  return { type, defines: parser.definedHere };
}
