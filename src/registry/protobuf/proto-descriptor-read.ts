import { registryProtoNestingDepthMax } from "../../limits.ts";
import {
  enumOptions,
  enumValueOptions,
  fieldOptions,
  fileOptions,
  jsonName,
  messageOptions,
  methodOptions,
  scalarTypeNumbers,
  serviceOptions,
  type OptionKind,
} from "./proto-descriptor-numbers.ts";
import { checkEnum, checkFieldNumber, checkMessage } from "./proto-parse.ts";
import { protoInvalid } from "./proto-tokens.ts";
import type { ProtoEnum, ProtoExtend, ProtoField, ProtoFile, ProtoImportKind, ProtoMessage, ProtoOption, ProtoService } from "./proto-types.ts";

/**
 * A PROTOBUF schema given as a FileDescriptorProto in base64 — what Confluent's Python (and
 * other) Protobuf serializers register, and Confluent's registry takes — read back into the
 * shapes of proto-types.ts, so it is checked, stored (printed as `.proto` text) and compared as
 * any other: maps from their `…Entry` messages, proto3 `optional` from its synthetic oneof, the
 * standard options by their numbers; type names kept as the descriptor writes them (`.pkg.Type`).
 * Anything that is not a descriptor is 42201. Pure.
 */

type Value = number | Uint8Array;
type Fields = Map<number, Value[]>;

const scalarNames = new Map(Object.entries(scalarTypeNumbers).map(([name, number]) => [number, name]));
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function bad(why: string): never {
  protoInvalid(1, `the schema is neither .proto text nor a FileDescriptorProto in base64: ${why}`);
}

/** A message's fields by number (varints as numbers, length-delimited as bytes; fixed ones skipped). */
function fieldsOf(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  let pos = 0;
  const varint = (): number => {
    const start = pos;
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const byte = bytes[pos++];
      if (byte === undefined) bad("a varint is cut short");
      if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) !== 0) continue;
      if (shift < 49) return value;
      // Longer: a negative int32 (ten bytes); a descriptor's varints are 32-bit numbers, so its low 32 bits.
      let big = 0n;
      for (let at = pos - 1; at >= start; at--) big = (big << 7n) | BigInt(bytes[at]! & 0x7f);
      return Number(BigInt.asIntN(32, big));
    }
    bad("a varint is longer than ten bytes");
  };
  while (pos < bytes.length) {
    const tag = varint();
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    let value: Value;
    if (wireType === 0) value = varint();
    else if (wireType === 2) {
      const length = varint();
      if (pos + length > bytes.length) bad("a length runs past the end");
      value = bytes.subarray(pos, pos + length);
      pos += length;
    } else if (wireType === 1 || wireType === 5) {
      pos += wireType === 1 ? 8 : 4;
      continue;
    } else bad(`wire type ${wireType}`);
    const list = fields.get(number);
    if (list) list.push(value);
    else fields.set(number, [value]);
  }
  if (pos > bytes.length) bad("a value runs past the end");
  return fields;
}

const bytesOf = (fields: Fields, number: number): Uint8Array[] => (fields.get(number) ?? []).filter((value): value is Uint8Array => value instanceof Uint8Array);
const numbersOf = (fields: Fields, number: number): number[] => (fields.get(number) ?? []).filter((value): value is number => typeof value === "number");
function stringOf(fields: Fields, number: number): string | undefined {
  const value = bytesOf(fields, number).at(-1);
  if (value === undefined) return undefined;
  try {
    return utf8.decode(value);
  } catch {
    bad("a string is not UTF-8");
  }
}
const numberOf = (fields: Fields, number: number): number | undefined => numbersOf(fields, number).at(-1);

/** A varint field of an int32 (a negative one is ten bytes, read as such above; a five-byte one as its 32-bit value). */
function int32(value: number): number {
  return value > 2 ** 31 - 1 ? value - 2 ** 32 : value;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A declaration's name: an identifier, as in `.proto` text. */
function nameOf(fields: Fields, number: number, what: string): string {
  const name = stringOf(fields, number);
  if (name === undefined || !identifier.test(name)) bad(`${what} has no name, or one that is not an identifier: ${JSON.stringify(name ?? "")}`);
  return name;
}

function optionsOf(bytes: Uint8Array | undefined, table: Record<string, [number, OptionKind]>): ProtoOption[] {
  if (!bytes) return [];
  const fields = fieldsOf(bytes);
  const options: ProtoOption[] = [];
  for (const [name, [number, kind]] of Object.entries(table)) {
    if (!fields.has(number)) continue;
    if (kind === "string") options.push({ name, value: { kind: "string", text: stringOf(fields, number)! } });
    else if (kind === "bool") options.push({ name, value: { kind: "identifier", text: numberOf(fields, number) ? "true" : "false" } });
    else {
      const symbol = Object.entries(kind).find(([, value]) => value === numberOf(fields, number))?.[0];
      if (symbol) options.push({ name, value: { kind: "identifier", text: symbol } });
    }
  }
  return options;
}

function readEnum(bytes: Uint8Array, scope: string, proto3: boolean): ProtoEnum {
  const declared = readEnumShape(bytes, scope);
  checkEnum(proto3 ? "proto3" : "proto2", declared);
  return declared;
}

function readEnumShape(bytes: Uint8Array, scope: string): ProtoEnum {
  const fields = fieldsOf(bytes);
  const name = nameOf(fields, 1, "an enum");
  return {
    name,
    fullName: scope ? `${scope}.${name}` : name,
    values: bytesOf(fields, 2).map((value) => {
      const entry = fieldsOf(value);
      return { name: nameOf(entry, 1, "an enum value"), number: int32(numberOf(entry, 2) ?? 0), options: optionsOf(bytesOf(entry, 3)[0], enumValueOptions) };
    }),
    reserved: {
      ranges: bytesOf(fields, 4).map((range) => {
        const entry = fieldsOf(range);
        return [int32(numberOf(entry, 1) ?? 0), int32(numberOf(entry, 2) ?? 0)];
      }),
      names: bytesOf(fields, 5).map((value) => utf8.decode(value)),
    },
    options: optionsOf(bytesOf(fields, 3)[0], enumOptions),
    line: 1,
  };
}

const labels = { 1: "optional", 2: "required", 3: "repeated" } as const;

/** A FieldDescriptorProto; `entries` are the message's map entry types by full name (with the dot). */
function readField(bytes: Uint8Array, proto3: boolean, entries: ReadonlyMap<string, { key: string; value: string }>): ProtoField & { extendee?: string; synthetic: boolean } {
  const fields = fieldsOf(bytes);
  const name = nameOf(fields, 1, "a field");
  const typeNumber = numberOf(fields, 5) ?? 0;
  if (typeNumber === 10) bad(`field ${name} is a group, which this registry does not take`);
  const typeName = stringOf(fields, 6);
  const label = labels[(numberOf(fields, 4) ?? 1) as 1 | 2 | 3] ?? "optional";
  const proto3Optional = numberOf(fields, 17) === 1;
  const entry = typeName !== undefined ? entries.get(typeName) : undefined;
  const options = optionsOf(bytesOf(fields, 8)[0], fieldOptions);
  const defaultValue = stringOf(fields, 7);
  if (defaultValue !== undefined) {
    const kind = typeNumber === 9 || typeNumber === 12 ? "string" : typeNumber === 14 || typeNumber === 8 ? "identifier" : "number";
    options.unshift({ name: "default", value: { kind, text: defaultValue } });
  }
  const json = stringOf(fields, 10);
  if (json !== undefined && json !== jsonName(name)) options.push({ name: "json_name", value: { kind: "string", text: json } });
  const field: ProtoField & { extendee?: string; synthetic: boolean } = {
    name,
    number: numberOf(fields, 3) ?? bad(`field ${name} has no number`),
    type: entry ? entry.value : (typeName ?? scalarNames.get(typeNumber) ?? bad(`field ${name} has type ${typeNumber}`)),
    options,
    line: 1,
    synthetic: proto3Optional,
  };
  if (entry) field.mapKey = entry.key;
  else if (label !== "optional" || !proto3 || proto3Optional) field.label = label;
  const oneof = numberOf(fields, 9);
  if (oneof !== undefined && !proto3Optional) field.oneof = oneof;
  const extendee = stringOf(fields, 2);
  if (extendee !== undefined) field.extendee = extendee;
  return field;
}

function groupExtends(fields: (ProtoField & { extendee?: string })[]): ProtoExtend[] {
  const byExtendee = new Map<string, ProtoField[]>();
  for (const { extendee, ...field } of fields) {
    const list = byExtendee.get(extendee ?? "") ?? [];
    list.push(field as ProtoField);
    byExtendee.set(extendee ?? "", list);
  }
  return [...byExtendee].map(([extendee, list]) => ({ extendee, fields: list }));
}

function strip<T extends { synthetic?: boolean; extendee?: string }>(field: T): Omit<T, "synthetic" | "extendee"> {
  const { synthetic: _synthetic, extendee: _extendee, ...rest } = field;
  return rest;
}

function readMessage(bytes: Uint8Array, scope: string, packageName: string, proto3: boolean, depth: number): ProtoMessage {
  if (depth > registryProtoNestingDepthMax) bad(`messages nest deeper than ${registryProtoNestingDepthMax}`);
  const fields = fieldsOf(bytes);
  const name = nameOf(fields, 1, "a message");
  const fullName = scope ? `${scope}.${name}` : name;
  const entries = new Map<string, { key: string; value: string }>();
  const nested: ProtoMessage[] = [];
  for (const nestedBytes of bytesOf(fields, 3)) {
    const nestedFields = fieldsOf(nestedBytes);
    const options = bytesOf(nestedFields, 7)[0];
    if (options && numberOf(fieldsOf(options), 7) === 1) {
      const [key, value] = bytesOf(nestedFields, 2).map((field) => readField(field, proto3, new Map()));
      if (!key || !value) bad(`map entry ${stringOf(nestedFields, 1)} has no key or value`);
      entries.set(`.${fullName}.${stringOf(nestedFields, 1)}`, { key: key.type, value: value.type });
    } else nested.push(readMessage(nestedBytes, fullName, packageName, proto3, depth + 1));
  }
  const read = bytesOf(fields, 2).map((field) => readField(field, proto3, entries));
  const synthetic = new Set(read.filter((field) => field.synthetic).map((field) => numberOf(fieldsOf(bytesOf(fields, 2)[read.indexOf(field)]!), 9)));
  const oneofs = bytesOf(fields, 8)
    .map((oneof, index) => ({ index, name: nameOf(fieldsOf(oneof), 1, "a oneof") }))
    .filter(({ index }) => !synthetic.has(index))
    .map(({ name: oneofName }) => ({ name: oneofName, options: [] }));
  const ranges = (number: number): [number, number][] =>
    bytesOf(fields, number).map((range) => {
      const entry = fieldsOf(range);
      return [numberOf(entry, 1) ?? 0, (numberOf(entry, 2) ?? 1) - 1];
    });
  const message: ProtoMessage = {
    name,
    fullName,
    package: packageName,
    fields: read.map(strip),
    oneofs,
    messages: nested,
    enums: bytesOf(fields, 4).map((value) => readEnum(value, fullName, proto3)),
    reserved: { ranges: ranges(9), names: bytesOf(fields, 10).map((value) => utf8.decode(value)) },
    extensionRanges: ranges(5),
    options: optionsOf(bytesOf(fields, 7)[0], messageOptions),
    extends: groupExtends(bytesOf(fields, 6).map((field) => readField(field, proto3, new Map()))),
    line: 1,
  };
  for (const field of message.fields) checkFieldNumber(field.number, 1);
  checkMessage(proto3 ? "proto3" : "proto2", message);
  return message;
}

function readService(bytes: Uint8Array): ProtoService {
  const fields = fieldsOf(bytes);
  return {
    name: nameOf(fields, 1, "a service"),
    methods: bytesOf(fields, 2).map((value) => {
      const method = fieldsOf(value);
      return {
        name: nameOf(method, 1, "a method"),
        input: stringOf(method, 2) ?? bad("a method has no input type"),
        output: stringOf(method, 3) ?? bad("a method has no output type"),
        clientStreaming: numberOf(method, 5) === 1,
        serverStreaming: numberOf(method, 6) === 1,
        options: optionsOf(bytesOf(method, 4)[0], methodOptions),
        line: 1,
      };
    }),
    options: optionsOf(bytesOf(fields, 3)[0], serviceOptions),
  };
}

/** Whether a schema's text is base64 (a descriptor) rather than `.proto` text, which always has a `;` or braces. */
export function isBase64Descriptor(text: string): boolean {
  return text.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text.trim());
}

/** The file a FileDescriptorProto in base64 describes. */
export function protoFileFromDescriptor(text: string): ProtoFile {
  let binary: string;
  try {
    binary = atob(text.trim());
  } catch {
    bad("it is not base64");
  }
  const fields = fieldsOf(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  const syntax = stringOf(fields, 12);
  if (syntax !== undefined && syntax !== "proto2" && syntax !== "proto3") bad(`syntax ${JSON.stringify(syntax)}`);
  const proto3 = syntax === "proto3";
  const packageName = stringOf(fields, 2) ?? "";
  const publicIndexes = new Set(numbersOf(fields, 10));
  const weakIndexes = new Set(numbersOf(fields, 11));
  return {
    syntax: proto3 ? "proto3" : "proto2",
    syntaxWritten: syntax !== undefined,
    package: packageName,
    imports: bytesOf(fields, 3).map((path, index) => ({
      path: utf8.decode(path),
      kind: (publicIndexes.has(index) ? "public" : weakIndexes.has(index) ? "weak" : "") as ProtoImportKind,
    })),
    options: optionsOf(bytesOf(fields, 8)[0], fileOptions),
    messages: bytesOf(fields, 4).map((value) => readMessage(value, packageName, packageName, proto3, 1)),
    enums: bytesOf(fields, 5).map((value) => readEnum(value, packageName, proto3)),
    services: bytesOf(fields, 6).map(readService),
    extends: groupExtends(bytesOf(fields, 7).map((field) => readField(field, proto3, new Map()))),
  };
}
