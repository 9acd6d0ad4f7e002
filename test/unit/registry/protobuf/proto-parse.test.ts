import { describe, expect, it } from "vitest";
import { registryProtoNestingDepthMax } from "../../../../src/limits.ts";
import { parseProtoText } from "../../../../src/registry/protobuf/proto-parse.ts";
import { parseProtobuf } from "../../../../src/registry/protobuf/proto-schema.ts";
import { RegistryError } from "../../../../src/registry/registry-errors.ts";
import { parseSchema, storedText } from "../../../../src/registry/schema-types.ts";

/** The 42201 message parsing `text` throws (the test fails when it parses). */
function refusal(text: string, parse: (text: string) => unknown = parseProtoText): string {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe("INVALID_SCHEMA");
    return (error as Error).message;
  }
  throw new Error(`parsed: ${text}`);
}

const order = `// An order, as a shop writes it.
syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
option java_package = "com.shop.v1"; /* a trailing comment */
option (my.ext).flag = { a: 1 b: "x" };

message Order {
  option deprecated = true;
  string id = 1;
  repeated Line lines = 2 [packed = true, deprecated = false];
  map<string, int64> counts = 3;
  google.protobuf.Timestamp at = 4;
  oneof payment {
    string card = 5;
    bytes token = 6;
  }
  optional int32 priority = 7;
  reserved 10 to 12, 15, 20 to max;
  reserved "old", "older";
  message Line { int32 quantity = 1; Status status = 2; }
  enum Status { option allow_alias = true; UNKNOWN = 0; NEW = 1; FRESH = 1; }
}

enum Region { REGION_UNSPECIFIED = 0; EU = 1 [deprecated = true]; }

service Orders {
  rpc Place(Order) returns (Order);
  rpc Watch(stream Order) returns (stream Order) { option deprecated = true; }
}
`;

describe("parsing .proto text", () => {
  it("reads syntax, package, imports, options, messages with nested types, maps, oneofs, reserved ranges, enums and services", () => {
    const file = parseProtoText(order);
    expect(file).toMatchObject({ syntax: "proto3", package: "shop.v1", imports: [{ path: "google/protobuf/timestamp.proto", kind: "" }] });
    expect(file.options).toEqual([
      { name: "java_package", value: { kind: "string", text: "com.shop.v1" } },
      { name: "(my.ext).flag", value: { kind: "aggregate", text: '{ a : 1 b : "x" }' } },
    ]);
    const message = file.messages[0]!;
    expect(message.fullName).toBe("shop.v1.Order");
    expect(message.fields.map((field) => [field.name, field.number, field.label, field.type, field.mapKey, field.oneof])).toEqual([
      ["id", 1, undefined, "string", undefined, undefined],
      ["lines", 2, "repeated", "Line", undefined, undefined],
      ["counts", 3, undefined, "int64", "string", undefined],
      ["at", 4, undefined, "google.protobuf.Timestamp", undefined, undefined],
      ["card", 5, undefined, "string", undefined, 0],
      ["token", 6, undefined, "bytes", undefined, 0],
      ["priority", 7, "optional", "int32", undefined, undefined],
    ]);
    expect(message.oneofs).toEqual([{ name: "payment", options: [] }]);
    expect(message.reserved).toEqual({ ranges: [[10, 12], [15, 15], [20, 536_870_911]], names: ["old", "older"] });
    expect(message.messages[0]!.fullName).toBe("shop.v1.Order.Line");
    expect(message.enums[0]!.values.map((value) => value.number)).toEqual([0, 1, 1]);
    expect(file.enums[0]!.values[1]!.options).toEqual([{ name: "deprecated", value: { kind: "identifier", text: "true" } }]);
    expect(file.services[0]!.methods.map((method) => [method.name, method.clientStreaming, method.serverStreaming])).toEqual([
      ["Place", false, false],
      ["Watch", true, true],
    ]);
  });

  it("reads proto2 (the default syntax): labels, required fields, defaults, extensions and extend blocks", () => {
    const file = parseProtoText(`package p; message A { required int32 a = 1; optional string b = 2 [default = "x\\n\\x41\\101"]; extensions 100 to 199; }
      extend A { optional int32 more = 100; }`);
    expect(file.syntax).toBe("proto2");
    expect(file.messages[0]!.fields[1]!.options[0]!.value).toEqual({ kind: "string", text: "x\nAA" });
    expect(file.messages[0]!.extensionRanges).toEqual([[100, 199]]);
    expect(file.extends[0]!.fields[0]!.name).toBe("more");
  });

  it("refuses invalid text with 42201 naming the line", () => {
    expect(refusal('syntax = "proto3";\nmessage M {\n  string a = 1\n}')).toMatch(/^Invalid schema: line 4: expected ";", found "}"/);
    expect(refusal('syntax = "proto4";')).toMatch(/line 1: syntax "proto4"/);
    expect(refusal('syntax = "proto3";\n\nmessage M { string a = 1; int32 b = 1; }')).toMatch(/line 3: .*number 1, as a has/);
    expect(refusal('syntax = "proto3"; message M { string a = 1; string a = 2; }')).toMatch(/declared twice/);
    expect(refusal('syntax = "proto3"; message M { reserved 2 to 4; int32 b = 3; }')).toMatch(/reserved/);
    expect(refusal('syntax = "proto3"; message M { reserved "b"; int32 b = 3; }')).toMatch(/reserved name/);
    expect(refusal('syntax = "proto3"; message M { int32 b = 0; }')).toMatch(/outside 1 to 536870911/);
    expect(refusal('syntax = "proto3"; message M { int32 b = 19500; }')).toMatch(/protobuf reserves/);
    expect(refusal('syntax = "proto3"; message M { required int32 b = 1; }')).toMatch(/proto3 does not have/);
    expect(refusal('syntax = "proto3"; message M { int32 b = 1 [default = 2]; }')).toMatch(/default/);
    expect(refusal("message M { int32 b = 1; }")).toMatch(/no label/);
    expect(refusal('syntax = "proto3"; enum E { A = 1; }')).toMatch(/first value is not 0/);
    expect(refusal('syntax = "proto3"; enum E { A = 0; B = 0; }')).toMatch(/allow_alias/);
    expect(refusal('syntax = "proto3"; message M { oneof o { map<string, int32> m = 1; } }')).toMatch(/map field m cannot be in a oneof/);
    expect(refusal('syntax = "proto3"; message M { oneof o { } }')).toMatch(/has no field/);
    expect(refusal("message M { optional group G = 1 { } }")).toMatch(/groups are not supported/);
    expect(refusal('edition = "2023";')).toMatch(/editions are not supported/);
    expect(refusal('syntax = "proto3"; /* open')).toMatch(/not closed/);
    expect(refusal('syntax = "proto3"; option x = "open\nmessage M {}')).toMatch(/line 1: a string literal is not closed/);
    expect(refusal('syntax = "proto3"; message M { int32 a = 1; } message M { int32 a = 1; }', (text) => parseProtobuf(text, []))).toMatch(/M/);
    expect(refusal("syntax = \"proto3\"; message M { int32 a = 1; } #")).toMatch(/unexpected character "#"/);
  });

  it("bounds nesting: messages and aggregate option values deeper than the limit are refused", () => {
    const deep = (depth: number) => `${"message M { ".repeat(depth)}${"} ".repeat(depth)}`;
    expect(() => parseProtoText(deep(registryProtoNestingDepthMax))).not.toThrow();
    expect(refusal(deep(registryProtoNestingDepthMax + 1))).toMatch(/registryProtoNestingDepthMax/);
    const aggregate = (depth: number) => `option (x) = ${"{ a ".repeat(depth)}${"} ".repeat(depth)};`;
    expect(() => parseProtoText(aggregate(registryProtoNestingDepthMax))).not.toThrow();
    expect(refusal(aggregate(registryProtoNestingDepthMax + 1))).toMatch(/registryProtoNestingDepthMax/);
  });
});

describe("resolving type names and imports", () => {
  it("resolves names from the innermost scope outwards, full names, and the well-known types without a reference", () => {
    const parsed = parseProtobuf(order, []);
    const [, lines, , at] = parsed.proto.messages[0]!.fields;
    expect(lines!.resolved).toEqual({ kind: "message", name: "shop.v1.Order.Line" });
    expect(at!.resolved).toEqual({ kind: "message", name: "google.protobuf.Timestamp" });
    expect(parsed.proto.messages[0]!.messages[0]!.fields[1]!.resolved).toEqual({ kind: "enum", name: "shop.v1.Order.Status" });
    const nested = parseProtobuf('syntax = "proto3"; package a.b; message X { Y.Z z = 1; .a.b.Y w = 2; } message Y { message Z {} }', []);
    expect(nested.proto.messages[0]!.fields.map((field) => field.resolved?.name)).toEqual(["a.b.Y.Z", "a.b.Y"]);
  });

  it("finds an import among the references by its name, and refuses an import with neither a reference nor a well-known path", () => {
    const common = parseProtobuf('syntax = "proto3"; package common; message Money { int64 cents = 1; } enum Currency { EUR = 0; }', []);
    const parsed = parseProtobuf('syntax = "proto3"; package shop; import "common/money.proto"; message Price { common.Money amount = 1; common.Currency currency = 2; }', [{ name: "common/money.proto", parsed: common }]);
    expect(parsed.proto.messages[0]!.fields.map((field) => field.resolved)).toEqual([
      { kind: "message", name: "common.Money" },
      { kind: "enum", name: "common.Currency" },
    ]);
    expect(refusal('syntax = "proto3"; import "common/money.proto"; message P { int32 a = 1; }', (text) => parseProtobuf(text, []))).toMatch(/import "common\/money.proto" is neither/);
    expect(refusal('syntax = "proto3"; message P { Money a = 1; }', (text) => parseProtobuf(text, []))).toMatch(/line 1: field a's type Money is not defined/);
    expect(refusal('syntax = "proto3"; message P { map<float, string> a = 1; }', (text) => parseProtobuf(text, []))).toMatch(/key type float/);
  });
});

describe("the stored text", () => {
  it("is the file printed back: comments and layout dropped, so two layouts of one file are one text", () => {
    const parsed = parseSchema("PROTOBUF", order, []);
    const text = storedText(parsed, order, false);
    expect(text).not.toMatch(/comment|shop writes/);
    expect(text).toContain('syntax = "proto3";\npackage shop.v1;\nimport "google/protobuf/timestamp.proto";');
    expect(text).toContain("  oneof payment {\n    string card = 5;\n    bytes token = 6;\n  }");
    expect(text).toContain("  reserved 10 to 12, 15, 20 to max;");
    const relaid = order.replace(/\/\/.*\n/, "").replace(/\/\*.*?\*\//g, "").replace(/\n\s*/g, " ");
    expect(storedText(parseSchema("PROTOBUF", `// An order\n${relaid}`, []), relaid, false)).toBe(text);
    // The printed text parses to the same text again.
    expect(storedText(parseSchema("PROTOBUF", text, []), text, false)).toBe(text);
  });

  it("normalized (normalize=true): imports and options sorted, fields by number, types by full name", () => {
    const a = 'syntax = "proto3"; package p; import "b.proto"; import "a.proto"; option java_package = "x"; option go_package = "y"; message M { N n = 2; int32 a = 1; message N {} }';
    const b = 'syntax = "proto3"; package p; import "a.proto"; import "b.proto"; option go_package = "y"; option java_package = "x"; message M { int32 a = 1; .p.M.N n = 2; message N {} }';
    const empty = parseProtobuf('syntax = "proto3";', []);
    const references = [{ name: "a.proto", parsed: empty }, { name: "b.proto", parsed: empty }];
    const normalized = (text: string) => storedText(parseProtobuf(text, references), text, true);
    expect(normalized(a)).toBe(normalized(b));
    expect(normalized(a)).toContain("  int32 a = 1;\n  .p.M.N n = 2;");
    expect(storedText(parseProtobuf(a, references), a, false)).not.toBe(storedText(parseProtobuf(b, references), b, false));
  });
});
