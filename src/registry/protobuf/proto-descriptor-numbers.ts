/**
 * google/protobuf/descriptor.proto's numbers the registry writes and reads
 * (proto-descriptor.ts, proto-descriptor-read.ts): field types, labels, and the standard options
 * of each descriptor by name with their field numbers and kinds. Pure data.
 */

/** FieldDescriptorProto.Type's numbers. */
export const scalarTypeNumbers: Record<string, number> = {
  double: 1, float: 2, int64: 3, uint64: 4, int32: 5, fixed64: 6, fixed32: 7, bool: 8, string: 9,
  bytes: 12, uint32: 13, sfixed32: 15, sfixed64: 16, sint32: 17, sint64: 18,
};
export const typeMessage = 11;
export const typeEnum = 14;
export const labelNumbers = { optional: 1, required: 2, repeated: 3 } as const;

export type OptionKind = "bool" | "string" | Record<string, number>;
/** The standard options of each descriptor, by name: their field number in its …Options message and their kind. */
export const fileOptions: Record<string, [number, OptionKind]> = {
  java_package: [1, "string"], java_outer_classname: [8, "string"], optimize_for: [9, { SPEED: 1, CODE_SIZE: 2, LITE_RUNTIME: 3 }],
  java_multiple_files: [10, "bool"], go_package: [11, "string"], cc_generic_services: [16, "bool"], java_generic_services: [17, "bool"],
  py_generic_services: [18, "bool"], java_generate_equals_and_hash: [20, "bool"], deprecated: [23, "bool"], java_string_check_utf8: [27, "bool"],
  cc_enable_arenas: [31, "bool"], objc_class_prefix: [36, "string"], csharp_namespace: [37, "string"], swift_prefix: [39, "string"],
  php_class_prefix: [40, "string"], php_namespace: [41, "string"], php_metadata_namespace: [44, "string"], ruby_package: [45, "string"],
};
export const messageOptions: Record<string, [number, OptionKind]> = {
  message_set_wire_format: [1, "bool"], no_standard_descriptor_accessor: [2, "bool"], deprecated: [3, "bool"],
};
export const fieldOptions: Record<string, [number, OptionKind]> = {
  ctype: [1, { STRING: 0, CORD: 1, STRING_PIECE: 2 }], packed: [2, "bool"], deprecated: [3, "bool"], lazy: [5, "bool"],
  jstype: [6, { JS_NORMAL: 0, JS_STRING: 1, JS_NUMBER: 2 }], weak: [10, "bool"], unverified_lazy: [15, "bool"],
};
export const enumOptions: Record<string, [number, OptionKind]> = { allow_alias: [2, "bool"], deprecated: [3, "bool"] };
export const enumValueOptions: Record<string, [number, OptionKind]> = { deprecated: [1, "bool"] };
export const serviceOptions: Record<string, [number, OptionKind]> = { deprecated: [33, "bool"] };
export const methodOptions: Record<string, [number, OptionKind]> = {
  deprecated: [33, "bool"], idempotency_level: [34, { IDEMPOTENCY_UNKNOWN: 0, NO_SIDE_EFFECTS: 1, IDEMPOTENT: 2 }],
};

/** protoc's json_name: underscores dropped, the letter after each capitalized. */
export function jsonName(name: string): string {
  return name.replace(/_+([a-z0-9]?)/g, (_, next: string) => next.toUpperCase());
}

