import { definedTypes, resolveProtoFile } from "./proto-resolve.ts";
import { isBase64Descriptor, protoFileFromDescriptor } from "./proto-descriptor-read.ts";
import { parseProtoText } from "./proto-parse.ts";
import { protoInvalid } from "./proto-tokens.ts";
import { allMessages, type ProtoEnum, type ProtoFile, type ProtoMessage } from "./proto-types.ts";
import { wellKnownTypes, type NamedKind } from "./well-known-protos.ts";

/**
 * A PROTOBUF schema as the registry holds it: its `.proto` text parsed, each import found among
 * the schema's references (Confluent's convention: a reference's `name` is the import's path)
 * or among the well-known files Confluent accepts without one (well-known-protos.ts), and its
 * type names resolved over its own types and its imports'. Pure.
 */

export interface ParsedProtobuf {
  schemaType: "PROTOBUF";
  proto: ProtoFile;
  /** The message and enum types the file may name: its own, and those of its imports (theirs too), by full name. */
  types: ReadonlyMap<string, NamedKind>;
  /** The messages the file may name whose declarations are known (its own and its references'; not the well-known ones), by full name. */
  messages: ReadonlyMap<string, ProtoMessage>;
  /** The enums of its references, by full name (a datum's enum values are shown by name). */
  enums: ReadonlyMap<string, ProtoEnum>;
}

export interface ProtobufReference {
  name: string;
  parsed: ParsedProtobuf;
}

/** Parses and resolves `text` over its references; 42201 naming the line of the first fault. */
export function parseProtobuf(text: string, references: readonly ProtobufReference[]): ParsedProtobuf {
  // Confluent's serializers may register the file as its FileDescriptorProto in base64.
  const proto = isBase64Descriptor(text) ? protoFileFromDescriptor(text) : parseProtoText(text);
  const own = definedTypes(proto);
  const types = new Map<string, NamedKind>();
  const messages = new Map<string, ProtoMessage>();
  const enums = new Map<string, ProtoEnum>();
  for (const { path } of proto.imports) {
    const reference = references.find((candidate) => candidate.name === path);
    for (const [name, message] of reference?.parsed.messages ?? []) messages.set(name, message);
    for (const [name, declared] of reference?.parsed.enums ?? []) enums.set(name, declared);
    const imported = reference?.parsed.types ?? wellKnownTypes(path);
    if (imported === undefined) {
      throw protoInvalid(1, `import "${path}" is neither the name of one of the schema's references nor a well-known file (google/protobuf/…, google/type/…, confluent/…)`);
    }
    for (const [name, kind] of imported) types.set(name, kind);
  }
  for (const [name, kind] of own) {
    if (types.has(name)) protoInvalid(1, `${name} is defined both here and in an imported file`);
    types.set(name, kind);
  }
  resolveProtoFile(proto, types);
  for (const message of allMessages(proto.messages)) {
    messages.set(message.fullName, message);
    for (const declared of message.enums) enums.set(declared.fullName, declared);
  }
  for (const declared of proto.enums) enums.set(declared.fullName, declared);
  return { schemaType: "PROTOBUF", proto, types, messages, enums };
}

/**
 * The schema's record name, as RecordNameStrategy and TopicRecordNameStrategy take it for a
 * Protobuf schema written without message indexes: its first message's full name (Confluent's
 * serializer names the message it writes; the first is the default). Undefined when the text
 * does not parse or declares no message.
 */
export function protobufRecordName(text: string): string | undefined {
  try {
    return (isBase64Descriptor(text) ? protoFileFromDescriptor(text) : parseProtoText(text)).messages[0]?.fullName;
  } catch {
    return undefined;
  }
}

/**
 * Every message's full name by its message indexes joined with dots ("0", "0.1", …): the record
 * name of a record whose Protobuf wire format names that message, for RecordNameStrategy and
 * TopicRecordNameStrategy. Empty when the text does not parse.
 */
export function protobufRecordNames(text: string): Record<string, string> {
  const names: Record<string, string> = {};
  const visit = (messages: readonly ProtoMessage[], prefix: string): void => {
    messages.forEach((message, index) => {
      const path = prefix ? `${prefix}.${index}` : `${index}`;
      names[path] = message.fullName;
      visit(message.messages, path);
    });
  };
  try {
    visit(parseProtoText(text).messages, "");
  } catch {
    return {};
  }
  return names;
}
