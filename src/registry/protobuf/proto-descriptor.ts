import {
  enumOptions,
  enumValueOptions,
  fieldOptions,
  fileOptions,
  jsonName,
  labelNumbers,
  messageOptions,
  methodOptions,
  scalarTypeNumbers,
  serviceOptions,
  typeEnum,
  typeMessage,
  type OptionKind,
} from "./proto-descriptor-numbers.ts";
import type { ParsedProtobuf } from "./proto-schema.ts";
import type { ProtoEnum, ProtoExtend, ProtoField, ProtoMessage, ProtoMethod, ProtoOption, ProtoService } from "./proto-types.ts";

/**
 * A parsed `.proto` file encoded as google/protobuf/descriptor.proto's FileDescriptorProto, in
 * protobuf's wire format: what `format=serialized` answers (base64) and Confluent's Protobuf
 * serializers and deserializers build their descriptor pools from. Written as protoc writes
 * it: maps as nested `…Entry` messages with `map_entry`, proto3 `optional` as a synthetic
 * oneof, type names fully qualified with a leading dot, `json_name` on every field, reserved
 * and extension ranges end-exclusive. The standard options are encoded by their numbers in
 * descriptor.proto; custom options (`(my.ext) = …`) are left out (their numbers and types live
 * in the file that declares them). The file's `name` is left out: clients name it themselves
 * (Confluent's name the root "default" and a reference by its name). Pure.
 */

/** Appends protobuf's wire format: tags, varints, length-delimited fields. */
class WireWriter {
  readonly #bytes: number[] = [];

  get bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  #varint(value: number): void {
    // Negative int32s are written as 64-bit two's complement: ten bytes.
    let big = BigInt.asUintN(64, BigInt(value));
    while (big >= 0x80n) {
      this.#bytes.push(Number(big & 0x7fn) | 0x80);
      big >>= 7n;
    }
    this.#bytes.push(Number(big));
  }

  varint(field: number, value: number): void {
    this.#varint(field * 8);
    this.#varint(value);
  }

  bool(field: number, value: boolean): void {
    this.varint(field, value ? 1 : 0);
  }

  bytesField(field: number, bytes: Uint8Array): void {
    this.#varint(field * 8 + 2);
    this.#varint(bytes.length);
    for (const byte of bytes) this.#bytes.push(byte);
  }

  string(field: number, value: string): void {
    this.bytesField(field, new TextEncoder().encode(value));
  }

  message(field: number, write: (writer: WireWriter) => void): void {
    const nested = new WireWriter();
    write(nested);
    this.bytesField(field, nested.bytes);
  }
}

/** The options this table knows, in field-number order; none known: nothing (no empty options message). */
function writeOptions(writer: WireWriter, field: number, options: readonly ProtoOption[], table: Record<string, [number, OptionKind]>, extra: [number, boolean][] = []): void {
  const known: [number, (target: WireWriter) => void][] = extra.map(([number, value]) => [number, (target) => target.bool(number, value)]);
  for (const { name, value } of options) {
    const entry = table[name];
    if (!entry) continue;
    const [number, kind] = entry;
    if (kind === "string" && value.kind === "string") known.push([number, (target) => target.string(number, value.text)]);
    else if (kind === "bool" && (value.text === "true" || value.text === "false")) known.push([number, (target) => target.bool(number, value.text === "true")]);
    else if (typeof kind === "object" && kind[value.text] !== undefined) known.push([number, (target) => target.varint(number, kind[value.text]!)]);
  }
  if (known.length === 0) return;
  known.sort((a, b) => a[0] - b[0]);
  writer.message(field, (options) => {
    for (const [, write] of known) write(options);
  });
}

/** protoc's name for a map field's entry message. */
function mapEntryName(fieldName: string): string {
  const camel = jsonName(fieldName);
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Entry`;
}

function typeFields(writer: WireWriter, type: string, resolved: ProtoField["resolved"]): void {
  if (!resolved || resolved.kind === "scalar") {
    writer.varint(5, scalarTypeNumbers[type]!);
    return;
  }
  writer.varint(5, resolved.kind === "message" ? typeMessage : typeEnum);
  writer.string(6, `.${resolved.name}`);
}

interface FieldPlace {
  /** The message's full name (a map field's entry is nested in it). */
  scope: string;
  extendee?: string;
  oneofIndex?: number;
  proto3Optional?: boolean;
}

/** A FieldDescriptorProto as field `tag` of `writer` (DescriptorProto's `field` or `extension`, FileDescriptorProto's `extension`). */
function writeField(writer: WireWriter, tag: number, field: ProtoField, place: FieldPlace): void {
  writer.message(tag, (out) => {
    out.string(1, field.name);
    if (place.extendee !== undefined) out.string(2, place.extendee);
    out.varint(3, field.number);
    out.varint(4, field.mapKey !== undefined ? labelNumbers.repeated : labelNumbers[field.label ?? "optional"]);
    if (field.mapKey !== undefined) {
      out.varint(5, typeMessage);
      out.string(6, `.${place.scope}.${mapEntryName(field.name)}`);
    } else typeFields(out, field.type, field.resolved);
    const defaultValue = field.options.find((option) => option.name === "default");
    if (defaultValue) out.string(7, defaultValue.value.text);
    writeOptions(out, 8, field.options, fieldOptions);
    if (place.oneofIndex !== undefined) out.varint(9, place.oneofIndex);
    const json = field.options.find((option) => option.name === "json_name");
    out.string(10, json?.value.text ?? jsonName(field.name));
    if (place.proto3Optional) out.bool(17, true);
  });
}

function writeMapEntry(writer: WireWriter, field: ProtoField): void {
  writer.message(3, (out) => {
    out.string(1, mapEntryName(field.name));
    const key: ProtoField = { name: "key", number: 1, label: "optional", type: field.mapKey!, options: [], resolved: { kind: "scalar", name: field.mapKey! }, line: field.line };
    const value: ProtoField = { name: "value", number: 2, label: "optional", type: field.type, options: [], ...(field.resolved ? { resolved: field.resolved } : {}), line: field.line };
    writeField(out, 2, key, { scope: "" });
    writeField(out, 2, value, { scope: "" });
    writeOptions(out, 7, [], messageOptions, [[7, true]]);
  });
}

function writeExtends(writer: WireWriter, field: number, extendList: readonly ProtoExtend[], scope: string): void {
  for (const extend of extendList) {
    const extendee = extend.resolvedExtendee !== undefined ? `.${extend.resolvedExtendee}` : extend.extendee;
    for (const extension of extend.fields) writeField(writer, field, extension, { scope, extendee });
  }
}

function writeMessage(writer: WireWriter, field: number, message: ProtoMessage, proto3: boolean): void {
  writer.message(field, (out) => {
    out.string(1, message.name);
    const synthetic: string[] = [];
    for (const member of message.fields) {
      const proto3Optional = proto3 && member.label === "optional";
      const oneofIndex = proto3Optional ? message.oneofs.length + synthetic.push(`_${member.name}`) - 1 : member.oneof;
      writeField(out, 2, member, { scope: message.fullName, ...(oneofIndex !== undefined ? { oneofIndex } : {}), proto3Optional });
    }
    for (const nested of message.messages) writeMessage(out, 3, nested, proto3);
    for (const member of message.fields) if (member.mapKey !== undefined) writeMapEntry(out, member);
    for (const declared of message.enums) writeEnum(out, 4, declared);
    for (const [start, end] of message.extensionRanges) {
      out.message(5, (range) => {
        range.varint(1, start);
        range.varint(2, end + 1);
      });
    }
    writeExtends(out, 6, message.extends, message.fullName);
    writeOptions(out, 7, message.options, messageOptions);
    for (const name of [...message.oneofs.map((oneof) => oneof.name), ...synthetic]) out.message(8, (oneof) => oneof.string(1, name));
    for (const [start, end] of message.reserved.ranges) {
      out.message(9, (range) => {
        range.varint(1, start);
        range.varint(2, end + 1);
      });
    }
    for (const name of message.reserved.names) out.string(10, name);
  });
}

function writeEnum(writer: WireWriter, field: number, declared: ProtoEnum): void {
  writer.message(field, (out) => {
    out.string(1, declared.name);
    for (const value of declared.values) {
      out.message(2, (entry) => {
        entry.string(1, value.name);
        entry.varint(2, value.number);
        writeOptions(entry, 3, value.options, enumValueOptions);
      });
    }
    writeOptions(out, 3, declared.options, enumOptions);
    for (const [start, end] of declared.reserved.ranges) {
      out.message(4, (range) => {
        range.varint(1, start);
        range.varint(2, end);
      });
    }
    for (const name of declared.reserved.names) out.string(5, name);
  });
}

function writeMethod(writer: WireWriter, method: ProtoMethod): void {
  writer.message(2, (out) => {
    out.string(1, method.name);
    out.string(2, `.${method.resolvedInput ?? method.input}`);
    out.string(3, `.${method.resolvedOutput ?? method.output}`);
    writeOptions(out, 4, method.options, methodOptions);
    if (method.clientStreaming) out.bool(5, true);
    if (method.serverStreaming) out.bool(6, true);
  });
}

function writeService(writer: WireWriter, service: ProtoService): void {
  writer.message(6, (out) => {
    out.string(1, service.name);
    for (const method of service.methods) writeMethod(out, method);
    writeOptions(out, 3, service.options, serviceOptions);
  });
}

/** The schema's FileDescriptorProto, in protobuf's wire format. */
export function fileDescriptorBytes(schema: ParsedProtobuf): Uint8Array {
  const file = schema.proto;
  const writer = new WireWriter();
  if (file.package) writer.string(2, file.package);
  for (const { path } of file.imports) writer.string(3, path);
  const proto3 = file.syntax === "proto3";
  for (const message of file.messages) writeMessage(writer, 4, message, proto3);
  for (const declared of file.enums) writeEnum(writer, 5, declared);
  for (const service of file.services) writeService(writer, service);
  writeExtends(writer, 7, file.extends, file.package);
  writeOptions(writer, 8, file.options, fileOptions);
  file.imports.forEach(({ kind }, index) => {
    if (kind === "public") writer.varint(10, index);
  });
  file.imports.forEach(({ kind }, index) => {
    if (kind === "weak") writer.varint(11, index);
  });
  if (proto3) writer.string(12, "proto3");
  return writer.bytes;
}

/** The FileDescriptorProto in base64: `format=serialized`'s `schema`. */
export function serializedSchema(schema: ParsedProtobuf): string {
  let binary = "";
  for (const byte of fileDescriptorBytes(schema)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
