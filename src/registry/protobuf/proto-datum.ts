import { registryProtoNestingDepthMax, schemaDatumDepthMax } from "../../limits.ts";
import { DatumError, pointerToken } from "../datum-error.ts";
import { parseProtoText } from "./proto-parse.ts";
import { definedTypes, resolveProtoFile } from "./proto-resolve.ts";
import type { ParsedProtobuf } from "./proto-schema.ts";
import { allMessages, type ProtoEnum, type ProtoField, type ProtoMessage } from "./proto-types.ts";

/**
 * Reads one Protobuf datum in Confluent's wire format (what follows the magic byte and schema
 * id): the message indexes (a zigzag varint count, then that many zigzag varints: the path from
 * the file's top-level messages down to the record's message; a count of 0 is the first
 * message), then the message in protobuf's binary encoding. What `tributary.*.schema.validation=full`
 * checks and `decode=schema` shows (docs/schema-registry.md): every field's wire type must be
 * its type's (packed or not for repeated scalars), lengths must fit, proto3 strings must be
 * UTF-8, proto2 required fields present; unknown fields are skipped, as protobuf does. Nesting
 * is bounded by schemaDatumDepthMax; every value takes at least a byte, so the datum's size
 * bounds the rest. Well-known types are read by their google/protobuf definitions; other
 * imported types the registry has no definition of (google/type…) are checked as well-formed
 * protobuf only. Pure, no code generation.
 *
 * With `build`, the message is returned as a plain JSON value (protobuf's JSON mapping, with the
 * project's convention for 64-bit integers): fields by name, absent ones left out, enums by
 * name (a number not in the enum as itself), bytes in base64, maps as objects, a 64-bit integer
 * outside ±2^53 and a non-finite float as a string.
 */

interface Reader {
  bytes: Uint8Array;
  pos: number;
  build: boolean;
  schema: ParsedProtobuf;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** The google/protobuf messages a datum may hold, as their files declare them (read with this registry's own parser, once). */
const wellKnownText = `syntax = "proto3"; package google.protobuf;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message Duration { int64 seconds = 1; int32 nanos = 2; }
message DoubleValue { double value = 1; } message FloatValue { float value = 1; }
message Int64Value { int64 value = 1; } message UInt64Value { uint64 value = 1; }
message Int32Value { int32 value = 1; } message UInt32Value { uint32 value = 1; }
message BoolValue { bool value = 1; } message StringValue { string value = 1; } message BytesValue { bytes value = 1; }
message Empty {} message FieldMask { repeated string paths = 1; }
message Any { string type_url = 1; bytes value = 2; }
message Struct { map<string, Value> fields = 1; }
message Value { oneof kind { NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; } }
enum NullValue { NULL_VALUE = 0; }
message ListValue { repeated Value values = 1; }`;
let wellKnown: { messages: Map<string, ProtoMessage>; enums: Map<string, ProtoEnum> } | undefined;

function wellKnownDefinitions(): NonNullable<typeof wellKnown> {
  if (wellKnown) return wellKnown;
  const file = parseProtoText(wellKnownText);
  resolveProtoFile(file, definedTypes(file));
  wellKnown = { messages: new Map(allMessages(file.messages).map((message) => [message.fullName, message])), enums: new Map(file.enums.map((declared) => [declared.fullName, declared])) };
  return wellKnown;
}

function truncated(path: string, what: string): never {
  throw new DatumError(path, `the datum ends inside ${what}`);
}

/** An unsigned varint of up to 64 bits: a number, or a bigint past 2^49. */
function readVarint(reader: Reader, path: string): number | bigint {
  let value = 0;
  let big: bigint | undefined;
  for (let shift = 0; shift < 70; shift += 7) {
    const byte = reader.bytes[reader.pos++];
    if (byte === undefined) truncated(path, "a varint");
    if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
    else big = (big ?? BigInt(value)) + (BigInt(byte & 0x7f) << BigInt(shift));
    if ((byte & 0x80) === 0) return big === undefined ? value : BigInt.asUintN(64, big);
  }
  throw new DatumError(path, "a varint is longer than ten bytes");
}

/** A tag's field number and wire type (number arithmetic for the usual tags: no bigint on the hot path). */
function splitTag(tag: number | bigint): [number, number] {
  if (typeof tag === "number") return [Math.floor(tag / 8), tag % 8];
  return [Number(tag >> 3n), Number(tag & 7n)];
}

const fieldsByNumber = new WeakMap<ProtoMessage, Map<number, ProtoField>>();

function fieldsOf(message: ProtoMessage): Map<number, ProtoField> {
  let fields = fieldsByNumber.get(message);
  if (!fields) {
    fields = new Map(message.fields.map((field) => [field.number, field]));
    fieldsByNumber.set(message, fields);
  }
  return fields;
}

function asBig(value: number | bigint): bigint {
  return typeof value === "bigint" ? value : BigInt(value);
}

/** A 64-bit integer as a JSON number within ±2^53, else as a string. */
function json64(value: bigint): number | string {
  return value >= -(2n ** 53n) && value <= 2n ** 53n ? Number(value) : value.toString();
}

function zigzag(value: number | bigint): bigint {
  const big = asBig(value);
  return (big >> 1n) ^ -(big & 1n);
}

/** Confluent's message indexes: the record's message. */
function readIndexes(reader: Reader): ProtoMessage {
  const count = Number(zigzag(readVarint(reader, "")));
  if (count < 0 || count > registryProtoNestingDepthMax) throw new DatumError("", `the message indexes' count ${count} is not one of a message's path`);
  const indexes = count === 0 ? [0] : Array.from({ length: count }, () => Number(zigzag(readVarint(reader, ""))));
  let candidates = reader.schema.proto.messages;
  let message: ProtoMessage | undefined;
  for (const index of indexes) {
    message = candidates[index];
    if (!message) throw new DatumError("", `the message indexes [${indexes.join(", ")}] name no message of the schema`);
    candidates = message.messages;
  }
  return message!;
}

function wireTypeOf(field: ProtoField): number {
  if (field.mapKey !== undefined || field.resolved?.kind === "message") return 2;
  if (field.resolved?.kind === "enum") return 0;
  switch (field.resolved?.name) {
    case "double": case "fixed64": case "sfixed64": return 1;
    case "float": case "fixed32": case "sfixed32": return 5;
    case "string": case "bytes": return 2;
    default: return 0;
  }
}

function skipField(reader: Reader, wireType: number, fieldNumber: number, path: string, depth: number): void {
  if (wireType === 0) readVarint(reader, path);
  else if (wireType === 1) reader.pos += 8;
  else if (wireType === 5) reader.pos += 4;
  else if (wireType === 2) {
    const length = Number(readVarint(reader, path));
    reader.pos += length;
  } else if (wireType === 3) {
    if (depth > schemaDatumDepthMax) throw new DatumError(path, `groups nest deeper than ${schemaDatumDepthMax} (limits.ts, schemaDatumDepthMax)`);
    for (;;) {
      const [number, type] = splitTag(readVarint(reader, path));
      if (type === 4) {
        if (number !== fieldNumber) throw new DatumError(path, "a group ends with another field's number");
        break;
      }
      skipField(reader, type, number, path, depth + 1);
    }
  } else throw new DatumError(path, `wire type ${wireType} is not protobuf's`);
  if (reader.pos > reader.bytes.length) truncated(path, `field ${fieldNumber}`);
}

function readFixed(reader: Reader, size: 4 | 8, path: string): DataView {
  if (reader.pos + size > reader.bytes.length) truncated(path, `a ${size * 8}-bit value`);
  const view = new DataView(reader.bytes.buffer, reader.bytes.byteOffset + reader.pos, size);
  reader.pos += size;
  return view;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function finite(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

function enumOf(reader: Reader, name: string): ProtoEnum | undefined {
  return reader.schema.enums.get(name) ?? wellKnownDefinitions().enums.get(name);
}

/** One scalar or enum value of `type` (wire type already checked). */
function readScalar(reader: Reader, field: ProtoField, type: string, path: string): unknown {
  switch (type) {
    case "double": return finite(readFixed(reader, 8, path).getFloat64(0, true));
    case "float": return finite(readFixed(reader, 4, path).getFloat32(0, true));
    case "fixed64": return json64(readFixed(reader, 8, path).getBigUint64(0, true));
    case "sfixed64": return json64(readFixed(reader, 8, path).getBigInt64(0, true));
    case "fixed32": return readFixed(reader, 4, path).getUint32(0, true);
    case "sfixed32": return readFixed(reader, 4, path).getInt32(0, true);
    case "string": case "bytes": {
      const length = Number(readVarint(reader, path));
      if (reader.pos + length > reader.bytes.length) truncated(path, `a ${type} of ${length} bytes`);
      const slice = reader.bytes.subarray(reader.pos, reader.pos + length);
      reader.pos += length;
      if (type === "bytes") return reader.build ? base64(slice) : undefined;
      if (reader.schema.proto.syntax !== "proto3") return reader.build ? lenientUtf8.decode(slice) : undefined;
      try {
        return utf8.decode(slice);
      } catch {
        throw new DatumError(path, "a proto3 string is not UTF-8");
      }
    }
  }
  const raw = readVarint(reader, path);
  switch (type) {
    case "bool": return raw !== 0 && raw !== 0n;
    case "int32": return typeof raw === "number" && raw <= 0x7fffffff ? raw : Number(BigInt.asIntN(32, asBig(raw)));
    case "uint32": return typeof raw === "number" && raw <= 0xffffffff ? raw : Number(BigInt.asUintN(32, asBig(raw)));
    case "int64": return typeof raw === "number" ? raw : json64(BigInt.asIntN(64, raw));
    case "uint64": return typeof raw === "number" ? raw : json64(BigInt.asUintN(64, raw));
    case "sint32": case "sint64": return json64(zigzag(raw));
  }
  // An enum: by name when the enum has the number (proto3's enums are open: any number reads).
  if (!reader.build) return undefined;
  const number = typeof raw === "number" && raw <= 0x7fffffff ? raw : Number(BigInt.asIntN(32, asBig(raw)));
  return enumOf(reader, field.resolved!.name)?.values.find((value) => value.number === number)?.name ?? number;
}

function readMessageAt(reader: Reader, name: string, end: number, path: string, depth: number): unknown {
  const message = reader.schema.messages.get(name) ?? wellKnownDefinitions().messages.get(name);
  if (!message) {
    // An imported type the registry has no declaration of: well-formed protobuf is all it checks.
    while (reader.pos < end) {
      const [number, wireType] = splitTag(readVarint(reader, path));
      skipField(reader, wireType, number, path, depth);
    }
    return reader.build ? {} : undefined;
  }
  return readMessage(reader, message, end, path, depth);
}

const mapEntries = new WeakMap<ProtoField, ProtoMessage>();

/** A map field's entry as a message of two fields (key 1, value 2), made once per field. */
function mapEntryOf(field: ProtoField): ProtoMessage {
  let entry = mapEntries.get(field);
  if (entry) return entry;
  const key: ProtoField = { name: "key", number: 1, type: field.mapKey!, options: [], resolved: { kind: "scalar", name: field.mapKey! }, line: field.line };
  const value: ProtoField = { ...field, name: "value", number: 2, options: [], label: "optional" };
  delete value.mapKey;
  entry = { name: "", fullName: "", package: "", fields: [key, value], oneofs: [], messages: [], enums: [], reserved: { ranges: [], names: [] }, extensionRanges: [], options: [], extends: [], line: 0 };
  mapEntries.set(field, entry);
  return entry;
}

/** A map entry into `target`. */
function readMapEntry(reader: Reader, field: ProtoField, end: number, path: string, depth: number, target: Record<string, unknown>): void {
  const entry = readMessage(reader, mapEntryOf(field), end, path, depth) as Record<string, unknown> | undefined;
  if (entry) target[String(entry.key ?? (field.mapKey === "bool" ? false : field.mapKey === "string" ? "" : 0))] = entry.value ?? null;
}

function readValue(reader: Reader, field: ProtoField, path: string, depth: number): unknown {
  if (field.resolved?.kind === "message") {
    const length = Number(readVarint(reader, path));
    const end = reader.pos + length;
    if (end > reader.bytes.length) truncated(path, `a message of ${length} bytes`);
    return readMessageAt(reader, field.resolved.name, end, path, depth + 1);
  }
  return readScalar(reader, field, field.resolved?.kind === "enum" ? "enum" : field.resolved!.name, path);
}

function readMessage(reader: Reader, message: ProtoMessage, end: number, path: string, depth: number): unknown {
  if (depth > schemaDatumDepthMax) throw new DatumError(path, `messages nest deeper than ${schemaDatumDepthMax} (limits.ts, schemaDatumDepthMax)`);
  const byNumber = fieldsOf(message);
  const result: Record<string, unknown> = {};
  const seen = new Set<number>();
  while (reader.pos < end) {
    const [number, wireType] = splitTag(readVarint(reader, path));
    const field = byNumber.get(number);
    if (!field) {
      skipField(reader, wireType, number, path, depth);
      continue;
    }
    seen.add(number);
    const at = `${path}/${pointerToken(field.name)}`;
    const expected = wireTypeOf(field);
    const packable = field.label === "repeated" && expected !== 2;
    if (field.mapKey !== undefined) {
      if (wireType !== 2) throw new DatumError(at, `wire type ${wireType} where the map's entries are length-delimited (2)`);
      const length = Number(readVarint(reader, at));
      const entryEnd = reader.pos + length;
      if (entryEnd > end) truncated(at, `a map entry of ${length} bytes`);
      const target = (result[field.name] ??= {}) as Record<string, unknown>;
      readMapEntry(reader, field, entryEnd, at, depth + 1, target);
    } else if (packable && wireType === 2) {
      const length = Number(readVarint(reader, at));
      const packedEnd = reader.pos + length;
      if (packedEnd > end) truncated(at, `packed values of ${length} bytes`);
      const values = (result[field.name] ??= []) as unknown[];
      while (reader.pos < packedEnd) values.push(readValue(reader, field, `${at}/${values.length}`, depth));
      if (reader.pos !== packedEnd) throw new DatumError(at, "packed values overrun their length");
    } else {
      if (wireType !== expected) throw new DatumError(at, `wire type ${wireType} where ${field.type} is written with wire type ${expected}`);
      if (field.label === "repeated") {
        const values = (result[field.name] ??= []) as unknown[];
        values.push(readValue(reader, field, `${at}/${values.length}`, depth));
      } else {
        result[field.name] = readValue(reader, field, at, depth);
        if (field.oneof !== undefined) {
          for (const other of message.fields) if (other.oneof === field.oneof && other !== field) delete result[other.name];
        }
      }
    }
    if (reader.pos > end) truncated(at, `field ${field.name}`);
  }
  for (const field of message.fields) {
    if (field.label === "required" && !seen.has(field.number)) throw new DatumError(`${path}/${pointerToken(field.name)}`, `required field ${field.name} is missing`);
  }
  return reader.build ? result : undefined;
}

/** Reads `bytes[start, end)` (message indexes, then the message): throws a DatumError naming where it does not conform; with `build`, the message as JSON. */
export function readProtobufDatum(schema: ParsedProtobuf, bytes: Uint8Array, start: number, end: number, build: boolean): unknown {
  const reader: Reader = { bytes: bytes.subarray(0, end), pos: start, build, schema };
  const message = readIndexes(reader);
  return readMessage(reader, message, end, "", 0);
}
