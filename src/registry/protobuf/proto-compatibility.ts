import type { Issue } from "../compatibility.ts";
import type { ParsedProtobuf } from "./proto-schema.ts";
import { allMessages, type ProtoField, type ProtoMessage, type ResolvedType } from "./proto-types.ts";

/**
 * Confluent's compatibility rules for Protobuf (its Protobuf provider's schema diff), as the
 * read rule the levels apply (compatibility.ts): `protobufReadIssues(reader, writer)` compares
 * the writer's schema (the original) with the reader's (the update) and names each difference
 * Confluent counts as incompatible:
 *
 * | difference | incompatible when |
 * |---|---|
 * | PACKAGE_CHANGED | the package differs |
 * | MESSAGE_REMOVED | a message of the writer's (nested ones too, by name within the package) is gone |
 * | FIELD_KIND_CHANGED | a field (by number) changes between scalar (enums count as scalars), message and map |
 * | FIELD_SCALAR_KIND_CHANGED | a scalar leaves its group: int32/int64/uint32/uint64/bool/enum, sint32/sint64, string/bytes, fixed32/sfixed32, fixed64/sfixed64, float, double |
 * | FIELD_NAMED_TYPE_CHANGED | a message field names another message (by name within its package), or a referenced message that changed incompatibly |
 * | FIELD_NUMERIC_LABEL_CHANGED | a numeric field's written label changes (optional, required, repeated); string and bytes may change theirs |
 * | REQUIRED_FIELD_ADDED / REQUIRED_FIELD_REMOVED | a proto2 required field appears or goes |
 * | ONEOF_FIELD_REMOVED | a oneof loses a field |
 * | FIELD_MOVED_TO_EXISTING_ONEOF | a field outside any oneof moves into a oneof the writer had |
 * | MULTIPLE_FIELDS_MOVED_TO_ONEOF | a new oneof takes two or more of the writer's fields that were outside any oneof |
 *
 * Everything else is compatible, as in Confluent: messages and enums added, enums and their
 * values added, removed or renumbered, fields added, removed (not required) or renamed, oneofs
 * added or removed, a single field moved into a new oneof. Pure.
 */

type ScalarGroup = "number" | "signed" | "bytes" | "fixed32" | "fixed64" | "float" | "double";

const scalarGroups: Record<string, ScalarGroup> = {
  int32: "number", int64: "number", uint32: "number", uint64: "number", bool: "number",
  sint32: "signed", sint64: "signed",
  string: "bytes", bytes: "bytes",
  fixed32: "fixed32", sfixed32: "fixed32",
  fixed64: "fixed64", sfixed64: "fixed64",
  float: "float", double: "double",
};

function packageLocal(name: string, packageName: string): string {
  return packageName && name.startsWith(`${packageName}.`) ? name.slice(packageName.length + 1) : name;
}

/** A resolved type's kind as Confluent groups them: an enum is a scalar of the "number" group. */
function kindOf(type: ResolvedType | undefined, field: ProtoField): "scalar" | "message" | "map" {
  if (field.mapKey !== undefined) return "map";
  return type?.kind === "message" ? "message" : "scalar";
}

function groupOf(type: ResolvedType | undefined): ScalarGroup {
  return type?.kind === "enum" ? "number" : (scalarGroups[type?.name ?? ""] ?? "number");
}

class Diff {
  readonly issues: Issue[] = [];
  readonly #writer: ParsedProtobuf;
  readonly #reader: ParsedProtobuf;
  /** Pairs of referenced messages being compared (writer's name, reader's name): recursion stops at a cycle. */
  readonly #comparing = new Set<string>();

  constructor(reader: ParsedProtobuf, writer: ParsedProtobuf) {
    this.#reader = reader;
    this.#writer = writer;
  }

  add(kind: string, location: string, message: string): void {
    this.issues.push({ kind, location, message });
  }

  run(): void {
    const writerPackage = this.#writer.proto.package;
    const readerPackage = this.#reader.proto.package;
    if (writerPackage !== readerPackage) this.add("PACKAGE_CHANGED", "#/", `the package changed from "${writerPackage}" to "${readerPackage}"`);
    const readerMessages = new Map(allMessages(this.#reader.proto.messages).map((message) => [packageLocal(message.fullName, readerPackage), message]));
    for (const original of allMessages(this.#writer.proto.messages)) {
      const local = packageLocal(original.fullName, writerPackage);
      const update = readerMessages.get(local);
      if (!update) this.add("MESSAGE_REMOVED", `#/${local}`, `message ${local} is missing`);
      else this.message(original, update, `#/${local}`, true);
    }
  }

  /** Compares two versions of one message; `local` says both are the files' own (their fields' local message types are compared at the top level). */
  message(original: ProtoMessage, update: ProtoMessage, path: string, local: boolean): void {
    const updateFields = new Map(update.fields.map((field) => [field.number, field]));
    const originalFields = new Map(original.fields.map((field) => [field.number, field]));
    for (const field of original.fields) {
      const next = updateFields.get(field.number);
      const at = `${path}/${field.number}`;
      if (!next) {
        if (field.label === "required") this.add("REQUIRED_FIELD_REMOVED", at, `required field ${field.name} is missing`);
        continue;
      }
      this.#field(field, next, at, local);
    }
    for (const field of update.fields) {
      if (!originalFields.has(field.number) && field.label === "required") this.add("REQUIRED_FIELD_ADDED", `${path}/${field.number}`, `required field ${field.name} was added`);
    }
    this.#oneofs(original, update, path);
  }

  #field(original: ProtoField, update: ProtoField, at: string, local: boolean): void {
    const originalKind = kindOf(original.resolved, original);
    const updateKind = kindOf(update.resolved, update);
    if (originalKind !== updateKind) {
      this.add("FIELD_KIND_CHANGED", at, `field ${update.name} changed from a ${originalKind} to a ${updateKind}`);
      return;
    }
    if (originalKind === "map") {
      if (groupOf({ kind: "scalar", name: original.mapKey! }) !== groupOf({ kind: "scalar", name: update.mapKey! })) {
        this.add("FIELD_SCALAR_KIND_CHANGED", at, `map field ${update.name}'s key changed from ${original.mapKey} to ${update.mapKey}`);
      }
      const valueKind = (type: ResolvedType | undefined) => (type?.kind === "message" ? "message" : "scalar");
      if (valueKind(original.resolved) !== valueKind(update.resolved)) this.add("FIELD_KIND_CHANGED", at, `map field ${update.name}'s value changed kind`);
      else if (valueKind(original.resolved) === "message") this.#namedTypes(original, update, at, local);
      else this.#scalars(original, update, at, true);
      return;
    }
    if (originalKind === "message") this.#namedTypes(original, update, at, local);
    else this.#scalars(original, update, at, false);
  }

  #scalars(original: ProtoField, update: ProtoField, at: string, mapValue: boolean): void {
    const group = groupOf(original.resolved);
    if (group !== groupOf(update.resolved)) {
      this.add("FIELD_SCALAR_KIND_CHANGED", at, `field ${update.name} changed from ${original.type} to ${update.type}, which protobuf does not read as each other`);
      return;
    }
    if (mapValue || original.label === undefined || update.label === undefined || original.label === update.label) return;
    if (group !== "bytes") this.add("FIELD_NUMERIC_LABEL_CHANGED", at, `numeric field ${update.name} changed from ${original.label} to ${update.label}`);
  }

  #namedTypes(original: ProtoField, update: ProtoField, at: string, local: boolean): void {
    const originalName = original.resolved!.name;
    const updateName = update.resolved!.name;
    const originalLocal = this.#localName(originalName, this.#writer);
    if (originalLocal !== this.#localName(updateName, this.#reader)) {
      this.add("FIELD_NAMED_TYPE_CHANGED", at, `field ${update.name} changed from message ${originalName} to ${updateName}`);
      return;
    }
    if (local && this.#ownMessage(this.#writer, originalName) && this.#ownMessage(this.#reader, updateName)) return; // compared at the top level
    const originalMessage = this.#writer.messages.get(originalName);
    const updateMessage = this.#reader.messages.get(updateName);
    const pair = `${originalName} ${updateName}`;
    if (!originalMessage || !updateMessage || this.#comparing.has(pair)) return;
    this.#comparing.add(pair);
    const before = this.issues.length;
    this.message(originalMessage, updateMessage, `#/${originalLocal}`, false);
    if (this.issues.length > before) this.add("FIELD_NAMED_TYPE_CHANGED", at, `field ${update.name}'s message ${updateName} changed incompatibly`);
    this.#comparing.delete(pair);
  }

  #ownMessage(schema: ParsedProtobuf, name: string): boolean {
    const message = schema.messages.get(name);
    return message !== undefined && message.package === schema.proto.package && allMessages(schema.proto.messages).includes(message);
  }

  /** A message's name within the package of the file that declares it (a well-known type's: its full name). */
  #localName(name: string, schema: ParsedProtobuf): string {
    const message = schema.messages.get(name);
    return message ? packageLocal(name, message.package) : name;
  }

  #oneofs(original: ProtoMessage, update: ProtoMessage, path: string): void {
    const originalOneof = new Map(original.fields.map((field) => [field.number, field.oneof === undefined ? undefined : original.oneofs[field.oneof]!.name]));
    const oneofNames = new Set(original.oneofs.map((oneof) => oneof.name));
    update.oneofs.forEach((oneof, index) => {
      const members = update.fields.filter((field) => field.oneof === index);
      const movedIn = members.filter((field) => originalOneof.has(field.number) && originalOneof.get(field.number) === undefined);
      if (oneofNames.has(oneof.name)) {
        for (const field of movedIn) this.add("FIELD_MOVED_TO_EXISTING_ONEOF", `${path}/${field.number}`, `field ${field.name} moved into the existing oneof ${oneof.name}`);
      } else if (movedIn.length > 1) {
        this.add("MULTIPLE_FIELDS_MOVED_TO_ONEOF", `${path}/${oneof.name}`, `fields ${movedIn.map((field) => field.name).join(", ")} moved into the new oneof ${oneof.name}`);
      }
    });
    original.oneofs.forEach((oneof, index) => {
      const updateIndex = update.oneofs.findIndex((candidate) => candidate.name === oneof.name);
      if (updateIndex < 0) return; // ONEOF_REMOVED: compatible
      const kept = new Set(update.fields.filter((field) => field.oneof === updateIndex).map((field) => field.number));
      for (const field of original.fields) {
        if (field.oneof === index && !kept.has(field.number)) this.add("ONEOF_FIELD_REMOVED", `${path}/${oneof.name}/${field.number}`, `oneof ${oneof.name} lost field ${field.name}`);
      }
    });
  }
}

/** What the reader's schema cannot read of data written with the writer's (Confluent's Protobuf rules). */
export function protobufReadIssues(reader: ParsedProtobuf, writer: ParsedProtobuf): Issue[] {
  const diff = new Diff(reader, writer);
  diff.run();
  return diff.issues;
}
