import { avroDatumValuesMax, avroDatumValuesPerByte, avroDatumValuesSlack, schemaDatumDepthMax } from "../limits.ts";
import type { AvroType } from "./avro-types.ts";
import { DatumError, pointerToken } from "./datum-error.ts";

/**
 * Reads one Avro binary datum (Avro 1.11 specification, "Binary Encoding") against its writer's
 * schema, the parsed graph of src/registry/avro-types.ts: what `tributary.*.schema.validation=full`
 * checks and what `decode=schema` shows (docs/schema-registry.md). Logical types are read as
 * their underlying types. Nothing is allocated from a length read off the wire before the bytes
 * are there: a string's or bytes' length must fit in what is left, and the values an array's or
 * map's block counts ask for are counted against a bound by the datum's size (avroDatumValuesPerByte,
 * within avroDatumValuesMax); nesting is bounded by
 * schemaDatumDepthMax. Pure, no code generation (workerd forbids it).
 *
 * With `build`, the datum is returned as a plain JSON value (not Avro's JSON encoding): records
 * and maps as objects, a union as its branch's value, an enum as its symbol, bytes and fixed in
 * base64, a long outside ±2^53 and a non-finite float as a string.
 */

interface Reader {
  bytes: Uint8Array;
  pos: number;
  end: number;
  values: number;
  /** The values this datum may hold: by its size, within avroDatumValuesMax. */
  valuesMax: number;
  build: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function truncated(path: string, what: string): never {
  throw new DatumError(path, `the datum ends inside ${what}`);
}

/** A zigzag varint of up to 64 bits: a number, or a bigint past 2^53. */
function readLong(reader: Reader, path: string, what = "a long"): number | bigint {
  const { bytes } = reader;
  let low = 0;
  let multiplier = 1;
  for (let index = 0; index < 7; index++) {
    if (reader.pos >= reader.end) truncated(path, what);
    const byte = bytes[reader.pos++]!;
    low += (byte & 0x7f) * multiplier;
    if ((byte & 0x80) === 0) return low % 2 === 0 ? low / 2 : -(low + 1) / 2;
    multiplier *= 128;
  }
  // Past 49 bits: the rest in bigint, exact to 64.
  let raw = BigInt(low);
  let shift = 49n;
  for (let index = 7; index < 10; index++) {
    if (reader.pos >= reader.end) truncated(path, what);
    const byte = bytes[reader.pos++]!;
    raw |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) {
      if (raw > 0xffff_ffff_ffff_ffffn) break;
      const value = (raw & 1n) === 0n ? raw >> 1n : -((raw + 1n) >> 1n);
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    }
    shift += 7n;
  }
  throw new DatumError(path, `${what} is longer than 64 bits`);
}

function readInt(reader: Reader, path: string, what = "an int"): number {
  const value = readLong(reader, path, what);
  if (typeof value !== "number" || value < -2147483648 || value > 2147483647) throw new DatumError(path, `${what} ${value} is outside 32 bits`);
  return value;
}

/** A length read off the wire, which must be ≥ 0 and at most the bytes left after it. */
function readLength(reader: Reader, path: string, what: string): number {
  const value = readLong(reader, path, what);
  const max = reader.end - reader.pos;
  if (typeof value !== "number" || value < 0) throw new DatumError(path, `${what} ${value} is negative`);
  if (value > max) throw new DatumError(path, `${what} ${value} is more than the ${max} bytes left in the datum`);
  return value;
}

function take(reader: Reader, length: number): Uint8Array {
  const slice = reader.bytes.subarray(reader.pos, reader.pos + length);
  reader.pos += length;
  return slice;
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let index = 0; index < bytes.length; index += 0x8000) text += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(text);
}

function count(reader: Reader, path: string, items: number): void {
  reader.values += items;
  if (reader.values > reader.valuesMax) {
    throw new DatumError(path, `the datum holds more than ${reader.valuesMax} values, ${avroDatumValuesPerByte} per byte (limits.ts, avroDatumValuesPerByte, avroDatumValuesMax)`);
  }
}

function readFloat(reader: Reader, path: string, size: 4 | 8): number | string {
  if (reader.end - reader.pos < size) truncated(path, size === 4 ? "a float" : "a double");
  const view = new DataView(reader.bytes.buffer, reader.bytes.byteOffset + reader.pos, size);
  reader.pos += size;
  const value = size === 4 ? view.getFloat32(0, true) : view.getFloat64(0, true);
  return Number.isFinite(value) ? value : String(value);
}

function readPrimitive(reader: Reader, type: AvroType & { kind: "primitive" }, path: string): unknown {
  switch (type.type) {
    case "null":
      return null;
    case "boolean": {
      if (reader.pos >= reader.end) truncated(path, "a boolean");
      const byte = reader.bytes[reader.pos++]!;
      if (byte > 1) throw new DatumError(path, `a boolean is byte ${byte}, not 0 or 1`);
      return byte === 1;
    }
    case "int":
      return readInt(reader, path);
    case "long": {
      const value = readLong(reader, path);
      return typeof value === "bigint" ? String(value) : value;
    }
    case "float":
      return readFloat(reader, path, 4);
    case "double":
      return readFloat(reader, path, 8);
    case "bytes": {
      const bytes = take(reader, readLength(reader, path, "a bytes length"));
      return reader.build ? base64(bytes) : undefined;
    }
    case "string": {
      const bytes = take(reader, readLength(reader, path, "a string length"));
      try {
        return utf8.decode(bytes);
      } catch {
        throw new DatumError(path, "a string is not UTF-8");
      }
    }
  }
}

/**
 * The blocks of an array or map: each a count (negative: its absolute value, then the block's
 * size in bytes), then that many items, until a count of 0.
 */
function readBlocks(reader: Reader, path: string, what: string, item: (index: number) => void): void {
  let index = 0;
  for (;;) {
    let items = readLong(reader, path, `the ${what}'s block count`);
    if (typeof items !== "number") throw new DatumError(path, `the ${what}'s block count ${items} is too large`);
    if (items === 0) return;
    let size = -1;
    if (items < 0) {
      items = -items;
      size = readLength(reader, path, `the ${what}'s block size`);
    }
    count(reader, path, items);
    const blockStart = reader.pos;
    for (let last = index + items; index < last; index++) item(index);
    if (size >= 0 && reader.pos - blockStart !== size) throw new DatumError(path, `the ${what}'s block's items take ${reader.pos - blockStart} bytes, not the ${size} its size says`);
  }
}

/** A fresh object for decoded fields and map keys: no prototype, so a key named "__proto__" is a key. */
function emptyObject(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function read(reader: Reader, type: AvroType, path: string, depth: number): unknown {
  if (depth > schemaDatumDepthMax) throw new DatumError(path, `the datum nests deeper than ${schemaDatumDepthMax} (limits.ts, schemaDatumDepthMax)`);
  switch (type.kind) {
    case "primitive":
      return readPrimitive(reader, type, path);
    case "record": {
      const object = reader.build ? emptyObject() : undefined;
      count(reader, path, type.fields.length);
      for (const field of type.fields) {
        const value = read(reader, field.type, `${path}/${pointerToken(field.name)}`, depth + 1);
        if (object) object[field.name] = value;
      }
      return object;
    }
    case "enum": {
      const index = readInt(reader, path, "an enum index");
      const symbol = type.symbols[index];
      if (index < 0 || symbol === undefined) throw new DatumError(path, `enum ${type.name} has no symbol at index ${index} (it has ${type.symbols.length})`);
      return symbol;
    }
    case "fixed": {
      if (reader.end - reader.pos < type.size) truncated(path, `fixed ${type.name} of ${type.size} bytes`);
      const bytes = take(reader, type.size);
      return reader.build ? base64(bytes) : undefined;
    }
    case "array": {
      const values: unknown[] | undefined = reader.build ? [] : undefined;
      readBlocks(reader, path, "array", (index) => {
        const value = read(reader, type.items, `${path}/${index}`, depth + 1);
        values?.push(value);
      });
      return values;
    }
    case "map": {
      const object = reader.build ? emptyObject() : undefined;
      readBlocks(reader, path, "map", () => {
        const key = readPrimitive(reader, { kind: "primitive", type: "string", props: {} }, path) as string;
        const value = read(reader, type.values, `${path}/${pointerToken(key)}`, depth + 1);
        if (object) object[key] = value;
      });
      return object;
    }
    case "union": {
      const index = readInt(reader, path, "a union branch index");
      const branch = type.branches[index];
      if (index < 0 || branch === undefined) throw new DatumError(path, `a union has no branch at index ${index} (it has ${type.branches.length})`);
      return read(reader, branch, path, depth + 1);
    }
  }
}

/**
 * Reads `bytes[start, end)` as one datum of `type`; throws DatumError naming where it does not
 * conform, or when bytes are left after it (a datum is the whole payload in Confluent's format).
 * With `build`, returns it as a plain JSON value (see above); without, only checks it.
 */
export function readAvroDatum(type: AvroType, bytes: Uint8Array, start: number, end: number, build: boolean): unknown {
  const valuesMax = Math.min(avroDatumValuesMax, avroDatumValuesSlack + avroDatumValuesPerByte * (end - start));
  const reader: Reader = { bytes, pos: start, end, values: 0, valuesMax, build };
  const value = read(reader, type, "", 0);
  if (reader.pos !== end) throw new DatumError("", `${end - reader.pos} bytes follow the datum`);
  return value;
}
