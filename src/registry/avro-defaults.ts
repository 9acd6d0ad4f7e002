import type { AvroType } from "./avro-types.ts";

/**
 * Whether a field's default is a value of its type, as JSON encodes Avro values (Avro 1.11,
 * "Complex Types", the table of default values): bytes and fixed as strings of code points
 * 0–255, a record as an object (fields with defaults may be left out), a union's default a
 * value of one of its branches (Avro's Java parser, which Confluent runs, takes any branch;
 * the specification's "first branch" is what older readers required). Answers what the value
 * should have been, or undefined when it is one.
 */
export function invalidDefaultReason(type: AvroType, value: unknown): string | undefined {
  return isValidDefault(type, value) ? undefined : describe(type);
}

function describe(type: AvroType): string {
  switch (type.kind) {
    case "primitive":
      return `${type.type} value`;
    case "union":
      return `value of any branch of the union`;
    default:
      return `${type.kind} value`;
  }
}

const isInt = (value: unknown, bits: 32 | 64): boolean =>
  typeof value === "number" && Number.isInteger(value) && (bits === 64 || (value >= -(2 ** 31) && value < 2 ** 31));

function isByteString(value: unknown): value is string {
  if (typeof value !== "string") return false;
  for (let index = 0; index < value.length; index++) if (value.charCodeAt(index) > 0xff) return false;
  return true;
}

export function isValidDefault(type: AvroType, value: unknown): boolean {
  switch (type.kind) {
    case "primitive":
      switch (type.type) {
        case "null":
          return value === null;
        case "boolean":
          return typeof value === "boolean";
        case "int":
          return isInt(value, 32);
        case "long":
          return isInt(value, 64);
        case "float":
        case "double":
          return typeof value === "number" || value === "NaN" || value === "Infinity" || value === "-Infinity";
        case "bytes":
          return isByteString(value);
        case "string":
          return typeof value === "string";
      }
      return false;
    case "enum":
      return typeof value === "string" && type.symbols.includes(value);
    case "fixed":
      return isByteString(value) && value.length === type.size;
    case "array":
      return Array.isArray(value) && value.every((item) => isValidDefault(type.items, item));
    case "map":
      return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => isValidDefault(type.values, item));
    case "record": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
      const object = value as Record<string, unknown>;
      return type.fields.every((field) => (field.name in object ? isValidDefault(field.type, object[field.name]) : field.default !== undefined));
    }
    case "union":
      return type.branches.some((branch) => isValidDefault(branch, value));
  }
}
