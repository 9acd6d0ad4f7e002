import { describe, expect, it } from "vitest";
import { compatibilityIssues } from "../../../../src/registry/compatibility.ts";
import { parseProtobuf, type ProtobufReference } from "../../../../src/registry/protobuf/proto-schema.ts";
import { schemaReadIssues, type ParsedSchema } from "../../../../src/registry/schema-types.ts";

/**
 * Confluent's Protobuf compatibility rules, each case as its own test: `kinds(writer, reader)`
 * are the differences the reader (the new schema, under BACKWARD) cannot take.
 */
const parse = (text: string, references: ProtobufReference[] = []): ParsedSchema => parseProtobuf(text, references);
const proto3 = (body: string, packageName = "p") => `syntax = "proto3"; package ${packageName}; ${body}`;
const kinds = (writer: string, reader: string, references: ProtobufReference[] = []): string[] =>
  schemaReadIssues(parse(reader, references), parse(writer, references)).map((issue) => issue.kind);

describe("Confluent's Protobuf compatibility rules", () => {
  it("an identical schema, and one with messages, enums, fields and oneofs added, is compatible", () => {
    const v1 = proto3("message M { int32 a = 1; }");
    expect(kinds(v1, v1)).toEqual([]);
    expect(kinds(v1, proto3("message M { int32 a = 1; string b = 2; oneof o { int64 c = 3; } } message N {} enum E { X = 0; }"))).toEqual([]);
  });

  it("a package changed is incompatible", () => {
    expect(kinds(proto3("message M {}", "a"), proto3("message M {}", "b"))).toEqual(["PACKAGE_CHANGED"]);
  });

  it("a message removed is incompatible, a nested one too; a message added or moved is not", () => {
    expect(kinds(proto3("message M {} message N {}"), proto3("message M {}"))).toEqual(["MESSAGE_REMOVED"]);
    expect(kinds(proto3("message M { message Inner {} }"), proto3("message M {}"))).toEqual(["MESSAGE_REMOVED"]);
    expect(kinds(proto3("message M {} message N {}"), proto3("message N {} message M {}"))).toEqual([]);
  });

  it("a field removed or renamed is compatible (fields are matched by number)", () => {
    expect(kinds(proto3("message M { int32 a = 1; string b = 2; }"), proto3("message M { int32 a = 1; }"))).toEqual([]);
    expect(kinds(proto3("message M { int32 a = 1; }"), proto3("message M { int32 renamed = 1; }"))).toEqual([]);
  });

  it("a field's number changed is the old field removed and a new one added: compatible unless the new number held another type", () => {
    expect(kinds(proto3("message M { int32 a = 1; }"), proto3("message M { int32 a = 2; }"))).toEqual([]);
    expect(kinds(proto3("message M { int32 a = 1; string b = 2; }"), proto3("message M { string b = 1; int32 a = 2; }"))).toEqual(["FIELD_SCALAR_KIND_CHANGED", "FIELD_SCALAR_KIND_CHANGED"]);
  });

  it("scalar types within one group are compatible: int32/int64/uint32/uint64/bool and enums, sint32/sint64, string/bytes, fixed32/sfixed32, fixed64/sfixed64", () => {
    const change = (from: string, to: string) => kinds(proto3(`message M { ${from} a = 1; } enum E { Z = 0; }`), proto3(`message M { ${to} a = 1; } enum E { Z = 0; }`));
    for (const [from, to] of [["int32", "int64"], ["uint32", "bool"], ["int64", "E"], ["E", "uint64"], ["sint32", "sint64"], ["string", "bytes"], ["fixed32", "sfixed32"], ["fixed64", "sfixed64"]]) {
      expect(change(from!, to!), `${from} → ${to}`).toEqual([]);
    }
    for (const [from, to] of [["int32", "sint32"], ["int32", "fixed32"], ["float", "double"], ["string", "int32"], ["fixed32", "fixed64"], ["double", "int64"]]) {
      expect(change(from!, to!), `${from} → ${to}`).toEqual(["FIELD_SCALAR_KIND_CHANGED"]);
    }
  });

  it("a field's kind changed (scalar, message, map) is incompatible", () => {
    const m = (field: string) => proto3(`message M { ${field} } message N { int32 x = 1; }`);
    expect(kinds(m("int32 a = 1;"), m("N a = 1;"))).toEqual(["FIELD_KIND_CHANGED"]);
    expect(kinds(m("N a = 1;"), m("map<string, N> a = 1;"))).toEqual(["FIELD_KIND_CHANGED"]);
    expect(kinds(m("map<string, int32> a = 1;"), m("map<string, N> a = 1;"))).toEqual(["FIELD_KIND_CHANGED"]);
    expect(kinds(m("map<string, int32> a = 1;"), m("map<string, int64> a = 1;"))).toEqual([]);
    expect(kinds(m("map<string, int32> a = 1;"), m("map<int32, int32> a = 1;"))).toEqual(["FIELD_SCALAR_KIND_CHANGED"]);
  });

  it("a message field naming another message is incompatible; the same name in another package reads as the same message", () => {
    const m = (type: string) => proto3(`message M { ${type} a = 1; } message N { int32 x = 1; } message O { int32 x = 1; }`);
    expect(kinds(m("N"), m("O"))).toEqual(["FIELD_NAMED_TYPE_CHANGED"]);
    expect(kinds(m("N"), m(".p.N"))).toEqual([]);
  });

  it("a referenced message that changed incompatibly makes the field naming it incompatible", () => {
    const common = (type: string) => ({ name: "common.proto", parsed: parseProtobuf(proto3(`message Money { ${type} cents = 1; }`, "common"), []) });
    const order = proto3('import "common.proto"; message Order { common.Money total = 1; }');
    const writer = parseProtobuf(order, [common("int64")]);
    expect(schemaReadIssues(parseProtobuf(order, [common("uint64")]), writer)).toEqual([]);
    expect(schemaReadIssues(parseProtobuf(order, [common("double")]), writer).map((issue) => issue.kind)).toEqual(["FIELD_SCALAR_KIND_CHANGED", "FIELD_NAMED_TYPE_CHANGED"]);
  });

  it("a numeric field's label changed is incompatible; a string's or bytes' is not", () => {
    const proto2 = (field: string) => `syntax = "proto2"; message M { ${field} }`;
    expect(kinds(proto2("optional int32 a = 1;"), proto2("repeated int32 a = 1;"))).toEqual(["FIELD_NUMERIC_LABEL_CHANGED"]);
    expect(kinds(proto2("repeated double a = 1;"), proto2("optional double a = 1;"))).toEqual(["FIELD_NUMERIC_LABEL_CHANGED"]);
    expect(kinds(proto2("optional string a = 1;"), proto2("repeated string a = 1;"))).toEqual([]);
    expect(kinds(proto2("optional bytes a = 1;"), proto2("repeated bytes a = 1;"))).toEqual([]);
    // proto3's implicit label is not compared.
    expect(kinds(proto3("message M { int32 a = 1; }"), proto3("message M { repeated int32 a = 1; }"))).toEqual([]);
  });

  it("proto2: a required field added or removed is incompatible; an optional one is not", () => {
    const proto2 = (fields: string) => `syntax = "proto2"; message M { optional int32 a = 1; ${fields} }`;
    expect(kinds(proto2(""), proto2("required string b = 2;"))).toEqual(["REQUIRED_FIELD_ADDED"]);
    expect(kinds(proto2("required string b = 2;"), proto2(""))).toEqual(["REQUIRED_FIELD_REMOVED"]);
    expect(kinds(proto2(""), proto2("optional string b = 2;"))).toEqual([]);
    expect(kinds(proto2("optional string b = 2;"), proto2(""))).toEqual([]);
  });

  it("oneofs: one field moved into a new oneof is compatible; several, or one into an existing oneof, are not; a oneof losing a field is not", () => {
    const m = (body: string) => proto3(`message M { ${body} }`);
    expect(kinds(m("int32 a = 1; int32 b = 2;"), m("oneof o { int32 a = 1; } int32 b = 2;"))).toEqual([]);
    expect(kinds(m("int32 a = 1; int32 b = 2;"), m("oneof o { int32 a = 1; int32 b = 2; }"))).toEqual(["MULTIPLE_FIELDS_MOVED_TO_ONEOF"]);
    expect(kinds(m("int32 a = 1; oneof o { int32 b = 2; }"), m("oneof o { int32 a = 1; int32 b = 2; }"))).toEqual(["FIELD_MOVED_TO_EXISTING_ONEOF"]);
    expect(kinds(m("oneof o { int32 a = 1; int32 b = 2; }"), m("oneof o { int32 a = 1; }"))).toEqual(["ONEOF_FIELD_REMOVED"]);
    expect(kinds(m("oneof o { int32 a = 1; }"), m("oneof o { int32 a = 1; int32 b = 2; }"))).toEqual([]); // ONEOF_FIELD_ADDED
    expect(kinds(m("oneof o { int32 a = 1; }"), m("int32 z = 9;"))).toEqual([]); // ONEOF_REMOVED with its fields
  });

  it("enums: values added, removed or renumbered, and enums removed, are compatible", () => {
    const e = (values: string) => proto3(`enum E { ${values} } message M { int32 a = 1; }`);
    expect(kinds(e("A = 0; B = 1;"), e("A = 0; B = 2; C = 3;"))).toEqual([]);
    expect(kinds(e("A = 0; B = 1;"), proto3("message M { int32 a = 1; }"))).toEqual([]);
  });

  it("a self-referencing message is compared without looping", () => {
    const tree = proto3("message Node { repeated Node children = 1; int32 value = 2; }");
    expect(kinds(tree, tree)).toEqual([]);
  });

  it("the levels apply the rule in each direction: a field removed is fine BACKWARD, a required field added fails BACKWARD and FORWARD in turn", () => {
    const v1 = parse('syntax = "proto2"; message M { optional int32 a = 1; }');
    const withRequired = parse('syntax = "proto2"; message M { optional int32 a = 1; required int32 b = 2; }');
    const previous = [{ version: 1, schema: v1 }];
    expect(compatibilityIssues("BACKWARD", withRequired, previous, schemaReadIssues).join()).toMatch(/REQUIRED_FIELD_ADDED/);
    expect(compatibilityIssues("FORWARD", withRequired, previous, schemaReadIssues).join()).toMatch(/REQUIRED_FIELD_REMOVED/);
    expect(compatibilityIssues("FULL", withRequired, previous, schemaReadIssues)).toHaveLength(3);
    const typeChanged = parse('syntax = "proto2"; message M { optional string a = 1; }');
    const v2 = parse('syntax = "proto2"; message M { optional int64 a = 1; }');
    const history = [{ version: 1, schema: typeChanged }, { version: 2, schema: v1 }];
    expect(compatibilityIssues("BACKWARD", v2, history, schemaReadIssues)).toEqual([]);
    expect(compatibilityIssues("BACKWARD_TRANSITIVE", v2, history, schemaReadIssues).join()).toMatch(/FIELD_SCALAR_KIND_CHANGED.*version 1/);
  });
});
