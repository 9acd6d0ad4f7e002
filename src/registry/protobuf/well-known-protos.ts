/**
 * The files a `.proto` schema may import without a reference, as Confluent Schema Registry
 * accepts them (its Protobuf provider bundles them): google/protobuf's well-known types, the
 * common google/type ones, and Confluent's own meta and decimal. Only their type names and
 * kinds are needed here (to resolve and compare field types, and to write FileDescriptorProto's
 * type references): message types by full name, `enum:` marking an enum. Pure data.
 */

const files: Record<string, string> = {
  "google/protobuf/any.proto": "google.protobuf.Any",
  "google/protobuf/api.proto": "google.protobuf.Api google.protobuf.Method google.protobuf.Mixin",
  "google/protobuf/duration.proto": "google.protobuf.Duration",
  "google/protobuf/empty.proto": "google.protobuf.Empty",
  "google/protobuf/field_mask.proto": "google.protobuf.FieldMask",
  "google/protobuf/source_context.proto": "google.protobuf.SourceContext",
  "google/protobuf/struct.proto": "google.protobuf.Struct google.protobuf.Value google.protobuf.ListValue enum:google.protobuf.NullValue",
  "google/protobuf/timestamp.proto": "google.protobuf.Timestamp",
  "google/protobuf/type.proto":
    "google.protobuf.Type google.protobuf.Field enum:google.protobuf.Field.Kind enum:google.protobuf.Field.Cardinality google.protobuf.Enum google.protobuf.EnumValue google.protobuf.Option enum:google.protobuf.Syntax",
  "google/protobuf/wrappers.proto":
    "google.protobuf.DoubleValue google.protobuf.FloatValue google.protobuf.Int64Value google.protobuf.UInt64Value google.protobuf.Int32Value google.protobuf.UInt32Value google.protobuf.BoolValue google.protobuf.StringValue google.protobuf.BytesValue",
  "google/protobuf/descriptor.proto":
    "google.protobuf.FileDescriptorSet google.protobuf.FileDescriptorProto google.protobuf.DescriptorProto google.protobuf.FieldDescriptorProto google.protobuf.OneofDescriptorProto google.protobuf.EnumDescriptorProto google.protobuf.EnumValueDescriptorProto google.protobuf.ServiceDescriptorProto google.protobuf.MethodDescriptorProto google.protobuf.FileOptions google.protobuf.MessageOptions google.protobuf.FieldOptions google.protobuf.OneofOptions google.protobuf.EnumOptions google.protobuf.EnumValueOptions google.protobuf.ServiceOptions google.protobuf.MethodOptions google.protobuf.ExtensionRangeOptions",
  "google/type/calendar_period.proto": "enum:google.type.CalendarPeriod",
  "google/type/color.proto": "google.type.Color",
  "google/type/date.proto": "google.type.Date",
  "google/type/datetime.proto": "google.type.DateTime google.type.TimeZone",
  "google/type/dayofweek.proto": "enum:google.type.DayOfWeek",
  "google/type/decimal.proto": "google.type.Decimal",
  "google/type/expr.proto": "google.type.Expr",
  "google/type/fraction.proto": "google.type.Fraction",
  "google/type/interval.proto": "google.type.Interval",
  "google/type/latlng.proto": "google.type.LatLng",
  "google/type/localized_text.proto": "google.type.LocalizedText",
  "google/type/money.proto": "google.type.Money",
  "google/type/month.proto": "enum:google.type.Month",
  "google/type/phone_number.proto": "google.type.PhoneNumber google.type.PhoneNumber.ShortCode",
  "google/type/postal_address.proto": "google.type.PostalAddress",
  "google/type/quaternion.proto": "google.type.Quaternion",
  "google/type/timeofday.proto": "google.type.TimeOfDay",
  "confluent/meta.proto": "confluent.Meta",
  "confluent/type/decimal.proto": "confluent.type.Decimal",
};

export type NamedKind = "message" | "enum";

/** The types a well-known file defines, by full name; undefined for a file that is not one. */
export function wellKnownTypes(path: string): ReadonlyMap<string, NamedKind> | undefined {
  const names = files[path];
  if (names === undefined) return undefined;
  return new Map(names.split(" ").map((name) => (name.startsWith("enum:") ? [name.slice(5), "enum"] : [name, "message"])));
}
