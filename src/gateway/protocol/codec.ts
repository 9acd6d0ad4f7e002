/**
 * The schema-driven codec: a message layout (schema.ts) at one version becomes a reader of
 * request bodies and a writer of response bodies (and, for tests and golden bytes, the other
 * two directions). Flexible versions use compact lengths and a tagged-field section after each
 * struct's fields; tags a layout does not know are skipped on read. Decoding answers an error
 * value for truncated or corrupted input, never throws.
 */
import { ByteReader, ByteWriter, MalformedInput } from "./primitives.ts";
import { inVersions, type FieldSpec, type MessageSchema, type PrimitiveType } from "./schema.ts";

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

type Struct = Record<string, unknown>;

interface Plan {
  name: string;
  type: PrimitiveType | "struct";
  array: boolean;
  nullable: boolean;
  tag: number | undefined;
  defaultValue: unknown;
  fields: StructPlan | undefined;
}

interface StructPlan {
  flexible: boolean;
  regular: Plan[];
  tagged: Plan[];
}

function defaultOf(type: PrimitiveType | "struct", text: string | undefined, array: boolean): unknown {
  if (text === "null") return null;
  if (array) return [];
  switch (type) {
    case "bool":
      return text === "true";
    case "int64":
      return text === undefined ? 0n : BigInt(text);
    case "string":
      return text ?? "";
    case "bytes":
    case "records":
      return new Uint8Array(0);
    case "uuid":
      return new Uint8Array(16);
    case "struct":
      return undefined;
    default:
      return text === undefined ? 0 : Number(text);
  }
}

function planFields(fields: readonly FieldSpec[], version: number, flexible: boolean): StructPlan {
  const regular: Plan[] = [];
  const tagged: Plan[] = [];
  for (const [name, fieldType, versions, extra = {}] of fields) {
    if (!inVersions(versions, version)) continue;
    const array = fieldType.startsWith("[]");
    const type = (array ? fieldType.slice(2) : fieldType) as PrimitiveType | "struct";
    const isTagged = flexible && extra.tag !== undefined && inVersions(extra.tagged, version);
    const plan: Plan = {
      name,
      type,
      array,
      nullable: inVersions(extra.nullable, version),
      tag: isTagged ? extra.tag : undefined,
      defaultValue: defaultOf(type, extra.default, array),
      fields: extra.fields ? planFields(extra.fields, version, flexible) : undefined,
    };
    (isTagged ? tagged : regular).push(plan);
  }
  tagged.sort((a, b) => a.tag! - b.tag!);
  return { flexible, regular, tagged };
}

function readOne(reader: ByteReader, plan: Plan, compact: boolean): unknown {
  switch (plan.type) {
    case "bool":
      return reader.int8() !== 0;
    case "int8":
      return reader.int8();
    case "int16":
      return reader.int16();
    case "uint16":
      return reader.uint16();
    case "int32":
      return reader.int32();
    case "uint32":
      return reader.uint32();
    case "int64":
      return reader.int64();
    case "float64":
      return reader.float64();
    case "uuid":
      return reader.raw(16);
    case "string": {
      const value = reader.string(compact);
      if (value === null && !plan.nullable) throw new MalformedInput(`${plan.name} is null`);
      return value;
    }
    case "bytes":
    case "records": {
      const value = reader.bytes(compact);
      if (value === null && !plan.nullable) throw new MalformedInput(`${plan.name} is null`);
      return value;
    }
    case "struct":
      // A nullable struct (ConsumerGroupHeartbeat's Assignment) is preceded by Kafka's marker byte: -1 null, 1 present.
      if (plan.nullable && !plan.array && reader.int8() < 0) return null;
      return readStruct(reader, plan.fields!);
  }
}

function readValue(reader: ByteReader, plan: Plan, compact: boolean): unknown {
  if (!plan.array) return readOne(reader, plan, compact);
  const count = reader.length(compact, true);
  if (count === null) {
    if (!plan.nullable) throw new MalformedInput(`${plan.name} is null`);
    return null;
  }
  // Every element takes at least one byte: a count past what is left is a lie, not an allocation.
  if (count > reader.remaining) throw new MalformedInput(`${plan.name}: ${count} elements in ${reader.remaining} bytes`);
  const values = new Array<unknown>(count);
  for (let i = 0; i < count; i++) values[i] = readOne(reader, plan, compact);
  return values;
}

function readStruct(reader: ByteReader, struct: StructPlan): Struct {
  const value: Struct = {};
  for (const plan of struct.regular) value[plan.name] = readValue(reader, plan, struct.flexible);
  if (!struct.flexible) return value;
  const count = reader.uvarint();
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const tag = reader.uvarint();
    if (tag <= previous) throw new MalformedInput(`tag ${tag} after tag ${previous}`);
    previous = tag;
    const size = reader.uvarint();
    const body = reader.raw(size);
    const plan = struct.tagged.find((candidate) => candidate.tag === tag);
    if (plan === undefined) continue;
    const inner = new ByteReader(body);
    value[plan.name] = readValue(inner, plan, true);
    if (inner.remaining !== 0) throw new MalformedInput(`tagged field ${plan.name}: ${inner.remaining} bytes left over`);
  }
  return value;
}

function writeOne(writer: ByteWriter, plan: Plan, value: unknown, compact: boolean): void {
  switch (plan.type) {
    case "bool":
      return writer.int8(value ? 1 : 0);
    case "int8":
      return writer.int8(Number(value));
    case "int16":
      return writer.int16(Number(value));
    case "uint16":
      return writer.uint16(Number(value));
    case "int32":
      return writer.int32(Number(value));
    case "uint32":
      return writer.uint32(Number(value));
    case "int64":
      return writer.int64(BigInt(value as bigint | number));
    case "float64":
      return writer.float64(Number(value));
    case "uuid":
      return writer.raw((value as Uint8Array | undefined) ?? new Uint8Array(16));
    case "string":
      return writer.string(value === null && !plan.nullable ? "" : (value as string | null), compact);
    case "records":
      // A fetch's record batches may come as the pieces the upstream read delivered: written one after another, none copied.
      if (Array.isArray(value)) return writer.bytePieces(value as Uint8Array[], compact);
      return writer.bytes(value === null && !plan.nullable ? new Uint8Array(0) : (value as Uint8Array | null), compact);
    case "bytes":
      return writer.bytes(value === null && !plan.nullable ? new Uint8Array(0) : (value as Uint8Array | null), compact);
    case "struct":
      if (plan.nullable && !plan.array) {
        writer.int8(value === null ? -1 : 1);
        if (value === null) return;
      }
      return writeStruct(writer, plan.fields!, (value ?? {}) as Struct);
  }
}

function writeValue(writer: ByteWriter, plan: Plan, given: unknown, compact: boolean): void {
  const value = given === undefined ? plan.defaultValue : given;
  if (!plan.array) return writeOne(writer, plan, value, compact);
  if (value === null || value === undefined) {
    writer.length_(plan.nullable ? null : 0, compact, true);
    return;
  }
  const values = value as unknown[];
  writer.length_(values.length, compact, true);
  for (const element of values) writeOne(writer, plan, element, compact);
}

function writeStruct(writer: ByteWriter, struct: StructPlan, value: Struct): void {
  for (const plan of struct.regular) writeValue(writer, plan, value[plan.name], struct.flexible);
  if (!struct.flexible) return;
  const present = struct.tagged.filter((plan) => {
    const field = value[plan.name];
    return field !== undefined && field !== null && field !== plan.defaultValue;
  });
  writer.uvarint(present.length);
  for (const plan of present) {
    const inner = new ByteWriter(32);
    writeValue(inner, plan, value[plan.name], true);
    const bytes = inner.finish();
    writer.uvarint(plan.tag!);
    writer.uvarint(bytes.length);
    writer.raw(bytes);
  }
}

/** One message at one version, both directions. */
export interface MessageCodec {
  readonly flexible: boolean;
  /**
   * Reads a request's fields and leaves what follows them in `reader`: Kafka's broker ignores
   * bytes after a well-formed request (librdkafka ≥ 2.3 sends Metadata v12 with 3 more), so the
   * caller decides what to do with them. A response is read whole or refused.
   */
  readRequest(reader: ByteReader): Decoded<Struct>;
  writeRequest(writer: ByteWriter, request: Struct): void;
  readResponse(reader: ByteReader): Decoded<Struct>;
  writeResponse(writer: ByteWriter, response: Struct): void;
}

function reading(struct: StructPlan, whole: boolean): (reader: ByteReader) => Decoded<Struct> {
  return (reader) => {
    try {
      const value = readStruct(reader, struct);
      if (whole && reader.remaining !== 0) return { ok: false, error: `${reader.remaining} bytes left over after the message` };
      return { ok: true, value };
    } catch (error) {
      if (error instanceof MalformedInput || error instanceof RangeError) return { ok: false, error: error.message };
      throw error;
    }
  };
}

const codecs = new Map<string, MessageCodec>();

/** The codec of `schema` at `version` (which the caller checked lies in `schema.versions`). */
export function messageCodec(schema: MessageSchema, version: number): MessageCodec {
  const key = `${schema.apiKey}/${version}`;
  let codec = codecs.get(key);
  if (codec === undefined) {
    const flexible = schema.flexibleFrom !== null && version >= schema.flexibleFrom;
    const request = planFields(schema.request, version, flexible);
    const response = planFields(schema.response, version, flexible);
    codec = {
      flexible,
      readRequest: reading(request, false),
      writeRequest: (writer, value) => writeStruct(writer, request, value),
      readResponse: reading(response, true),
      writeResponse: (writer, value) => writeStruct(writer, response, value),
    };
    codecs.set(key, codec);
  }
  return codec;
}
