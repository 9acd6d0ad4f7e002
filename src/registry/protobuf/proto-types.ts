/**
 * A parsed `.proto` file (proto2 or proto3), as src/registry/protobuf/proto-parse.ts reads it:
 * the declarations in source order where order matters (fields, enum values), with each
 * field's type as written and, once resolved, the full name and kind of the type it names.
 * Pure shapes.
 */

export type ProtoSyntax = "proto2" | "proto3";

/** An option's value as written: a string (unescaped), an identifier, a number, or an aggregate `{…}` kept as its normalized text. */
export interface ProtoOptionValue {
  kind: "string" | "identifier" | "number" | "aggregate";
  text: string;
}

export interface ProtoOption {
  /** As written, parentheses kept: `java_package`, `(my.ext).field`. */
  name: string;
  value: ProtoOptionValue;
}

export type ProtoLabel = "optional" | "required" | "repeated";

/** What a field's type names once resolved: a scalar, or a message or enum by its full name (no leading dot). */
export type ResolvedType = { kind: "scalar"; name: string } | { kind: "message" | "enum"; name: string };

export interface ProtoField {
  name: string;
  number: number;
  /** The label written; none in proto3 means singular (implicit presence). */
  label?: ProtoLabel;
  /** The type as written (a scalar's name or a type name); for a map, its value type. */
  type: string;
  /** A map field: its key type (a scalar's name). */
  mapKey?: string;
  options: ProtoOption[];
  /** Index of its oneof in the message's oneofs. */
  oneof?: number;
  /** Set by resolution. */
  resolved?: ResolvedType;
  line: number;
}

export interface ProtoOneof {
  name: string;
  options: ProtoOption[];
}

export interface ProtoReserved {
  /** Inclusive ranges. */
  ranges: [number, number][];
  names: string[];
}

export interface ProtoMessage {
  name: string;
  /** Package and enclosing messages, dotted, no leading dot. */
  fullName: string;
  /** The package of the file that declares it. */
  package: string;
  fields: ProtoField[];
  oneofs: ProtoOneof[];
  messages: ProtoMessage[];
  enums: ProtoEnum[];
  reserved: ProtoReserved;
  /** Inclusive ranges. */
  extensionRanges: [number, number][];
  options: ProtoOption[];
  extends: ProtoExtend[];
  line: number;
}

export interface ProtoEnumValue {
  name: string;
  number: number;
  options: ProtoOption[];
}

export interface ProtoEnum {
  name: string;
  fullName: string;
  values: ProtoEnumValue[];
  reserved: ProtoReserved;
  options: ProtoOption[];
  line: number;
}

export interface ProtoMethod {
  name: string;
  input: string;
  output: string;
  clientStreaming: boolean;
  serverStreaming: boolean;
  options: ProtoOption[];
  /** Set by resolution: the input's and output's full names. */
  resolvedInput?: string;
  resolvedOutput?: string;
  line: number;
}

export interface ProtoService {
  name: string;
  methods: ProtoMethod[];
  options: ProtoOption[];
}

/** `extend Foo { … }`: extension fields of another message (custom options, proto2 extensions). */
export interface ProtoExtend {
  extendee: string;
  /** Set by resolution when the extended message is known: its full name. */
  resolvedExtendee?: string;
  fields: ProtoField[];
}

export type ProtoImportKind = "" | "public" | "weak";

export interface ProtoImport {
  path: string;
  kind: ProtoImportKind;
}

export interface ProtoFile {
  syntax: ProtoSyntax;
  /** Whether `syntax` was written (proto2 by default when it is not). */
  syntaxWritten: boolean;
  package: string;
  imports: ProtoImport[];
  options: ProtoOption[];
  messages: ProtoMessage[];
  enums: ProtoEnum[];
  services: ProtoService[];
  extends: ProtoExtend[];
}

/** protobuf's scalar types. */
export const protoScalars: ReadonlySet<string> = new Set([
  "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
  "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
]);

/** The scalars a map's key may be: any integral or string type. */
export const protoMapKeyScalars: ReadonlySet<string> = new Set([
  "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string",
]);

/** Every message of a file with its nested ones, depth first in source order. */
export function allMessages(messages: readonly ProtoMessage[]): ProtoMessage[] {
  return messages.flatMap((message) => [message, ...allMessages(message.messages)]);
}
