import { protoInvalid } from "./proto-tokens.ts";
import {
  protoMapKeyScalars,
  protoScalars,
  type ProtoExtend,
  type ProtoField,
  type ProtoFile,
  type ProtoMessage,
  type ProtoMethod,
  type ResolvedType,
} from "./proto-types.ts";
import type { NamedKind } from "./well-known-protos.ts";

/**
 * Resolves the type names a file's fields, extensions and methods write to the types they name
 * (protobuf's scoping: from the innermost enclosing scope outwards, the first name component
 * found decides; a leading dot is a full name), over the file's own types and those its imports
 * define. Sets each field's `resolved`; a name declared twice is 42201; 42201 naming the line of a name that names nothing, or a
 * map whose key is not an integral or string scalar. Pure.
 */

/** The message and enum types a file defines, by full name. */
export function definedTypes(file: ProtoFile): Map<string, NamedKind> {
  const types = new Map<string, NamedKind>();
  const define = (fullName: string, kind: NamedKind, line: number): void => {
    if (types.has(fullName)) protoInvalid(line, `${fullName} is declared twice`);
    types.set(fullName, kind);
  };
  const visit = (messages: readonly ProtoMessage[]): void => {
    for (const message of messages) {
      define(message.fullName, "message", message.line);
      for (const declared of message.enums) define(declared.fullName, "enum", declared.line);
      visit(message.messages);
    }
  };
  for (const declared of file.enums) define(declared.fullName, "enum", declared.line);
  visit(file.messages);
  return types;
}

const prefixCache = new WeakMap<ReadonlyMap<string, NamedKind>, Set<string>>();

/** Every dotted prefix of the types' names (packages and enclosing messages), computed once per map. */
function prefixesOf(types: ReadonlyMap<string, NamedKind>): Set<string> {
  let prefixes = prefixCache.get(types);
  if (prefixes) return prefixes;
  prefixes = new Set();
  for (const full of types.keys()) {
    for (let dot = full.indexOf("."); dot >= 0; dot = full.indexOf(".", dot + 1)) prefixes.add(full.slice(0, dot));
  }
  prefixCache.set(types, prefixes);
  return prefixes;
}

/** The full name `name` means when written in `scope` (dotted, no leading dot), or undefined. */
export function resolveName(name: string, scope: string, types: ReadonlyMap<string, NamedKind>): string | undefined {
  if (name.startsWith(".")) return types.has(name.slice(1)) ? name.slice(1) : undefined;
  const first = name.split(".")[0]!;
  const parts = scope ? scope.split(".") : [];
  for (let length = parts.length; length >= 0; length -= 1) {
    const prefix = parts.slice(0, length).join(".");
    const candidateFirst = prefix ? `${prefix}.${first}` : first;
    // The first component may name a type or a package (a prefix of some type's name).
    const found = types.has(candidateFirst) || prefixesOf(types).has(candidateFirst);
    if (!found) continue;
    const full = prefix ? `${prefix}.${name}` : name;
    return types.has(full) ? full : undefined;
  }
  return undefined;
}

function resolveField(field: ProtoField, scope: string, types: ReadonlyMap<string, NamedKind>): void {
  if (field.mapKey !== undefined && !protoMapKeyScalars.has(field.mapKey)) protoInvalid(field.line, `map field ${field.name}'s key type ${field.mapKey} is not an integral or string scalar`);
  if (protoScalars.has(field.type)) {
    field.resolved = { kind: "scalar", name: field.type };
    return;
  }
  const full = resolveName(field.type, scope, types);
  if (full === undefined) protoInvalid(field.line, `field ${field.name}'s type ${field.type} is not defined (an imported file's types need the import, and the import a reference)`);
  field.resolved = { kind: types.get(full)!, name: full } as ResolvedType;
}

function resolveExtend(extend: ProtoExtend, scope: string, types: ReadonlyMap<string, NamedKind>): void {
  const extendee = resolveName(extend.extendee, scope, types);
  if (extendee !== undefined) extend.resolvedExtendee = extendee;
  for (const field of extend.fields) resolveField(field, scope, types);
}

function resolveMessage(message: ProtoMessage, types: ReadonlyMap<string, NamedKind>): void {
  for (const field of message.fields) resolveField(field, message.fullName, types);
  for (const extend of message.extends) resolveExtend(extend, message.fullName, types);
  for (const nested of message.messages) resolveMessage(nested, types);
}

function resolveMethodType(name: string, method: ProtoMethod, scope: string, types: ReadonlyMap<string, NamedKind>): string {
  const full = resolveName(name, scope, types);
  if (full === undefined || types.get(full) !== "message") protoInvalid(method.line, `method ${method.name}'s type ${name} is not a message defined here or imported`);
  return full;
}

/** Resolves every field of `file` over `types` (its own and its imports'). */
export function resolveProtoFile(file: ProtoFile, types: ReadonlyMap<string, NamedKind>): void {
  for (const message of file.messages) resolveMessage(message, types);
  for (const extend of file.extends) resolveExtend(extend, file.package, types);
  for (const method of file.services.flatMap((service) => service.methods)) {
    method.resolvedInput = resolveMethodType(method.input, method, file.package, types);
    method.resolvedOutput = resolveMethodType(method.output, method, file.package, types);
  }
}
