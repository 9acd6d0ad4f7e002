import { isNamed, type AvroField, type AvroType, type Props } from "./avro-types.ts";

/**
 * Two written forms of a parsed Avro schema:
 *
 * - Parsing Canonical Form (Avro 1.11 specification, "Parsing Canonical Form for Schemas"):
 *   primitives as bare names, full names, only the attributes that matter to reading (name,
 *   type, fields, symbols, items, values, size) in that order, no whitespace, a named type
 *   written out at its first use and by name after. Two schemas with the same canonical form
 *   read the same bytes.
 * - The normalized form `normalize=true` registers (docs/schema-registry.md): the canonical
 *   form's shape and order, keeping what the canonical form strips but a user means (defaults,
 *   aliases as full names, order, doc, logical types and other properties, sorted by key), so
 *   schemas that differ only in layout, key order, namespace spelling or `{"type": "int"}` vs
 *   `"int"` get one id.
 */
export function canonicalForm(type: AvroType): string {
  return JSON.stringify(write(type, false, new Set()));
}

/** `external`: the names the schema's references define, written by name (they are not the schema's to define). */
export function normalizedForm(type: AvroType, external: Iterable<string> = []): string {
  return JSON.stringify(write(type, true, new Set(external)));
}

function sortedProps(props: Props): [string, unknown][] {
  return Object.entries(props).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function withProps(base: Record<string, unknown>, props: Props, keep: boolean): Record<string, unknown> {
  if (keep) for (const [key, value] of sortedProps(props)) base[key] = value;
  return base;
}

function write(type: AvroType, keep: boolean, written: Set<string>): unknown {
  switch (type.kind) {
    case "primitive":
      return keep && Object.keys(type.props).length > 0 ? withProps({ type: type.type }, type.props, true) : type.type;
    case "array":
      return withProps({ type: "array", items: write(type.items, keep, written) }, type.props, keep);
    case "map":
      return withProps({ type: "map", values: write(type.values, keep, written) }, type.props, keep);
    case "union":
      return type.branches.map((branch) => write(branch, keep, written));
  }
  if (!isNamed(type)) throw new Error("unreachable");
  if (written.has(type.name)) return type.name;
  written.add(type.name);
  const out: Record<string, unknown> = { name: type.name, type: type.kind === "record" ? type.type : type.kind };
  if (type.kind === "record") out.fields = type.fields.map((field) => writeField(field, keep, written));
  if (type.kind === "enum") out.symbols = type.symbols;
  if (type.kind === "fixed") out.size = type.size;
  if (!keep) return out;
  if (type.kind === "enum" && type.default !== undefined) out.default = type.default;
  if (type.aliases.length > 0) out.aliases = [...type.aliases].sort();
  if (type.doc !== undefined) out.doc = type.doc;
  return withProps(out, type.props, true);
}

function writeField(field: AvroField, keep: boolean, written: Set<string>): unknown {
  const out: Record<string, unknown> = { name: field.name, type: write(field.type, keep, written) };
  if (!keep) return out;
  if (field.default !== undefined) out.default = field.default.value;
  if (field.aliases.length > 0) out.aliases = [...field.aliases].sort();
  if (field.order !== undefined && field.order !== "ascending") out.order = field.order;
  if (field.doc !== undefined) out.doc = field.doc;
  return withProps(out, field.props, true);
}
