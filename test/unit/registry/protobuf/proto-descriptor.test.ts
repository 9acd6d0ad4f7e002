import { describe, expect, it } from "vitest";
import { fileDescriptorBytes, serializedSchema } from "../../../../src/registry/protobuf/proto-descriptor.ts";
import { parseProtobuf } from "../../../../src/registry/protobuf/proto-schema.ts";
import { RegistryError } from "../../../../src/registry/registry-errors.ts";
import { parseSchema, storedText } from "../../../../src/registry/schema-types.ts";

/**
 * `format=serialized`: the FileDescriptorProto of a parsed file. The expected bytes were checked
 * by hand by decoding them with a real protobuf implementation (protobufjs's descriptor.proto
 * types: every field as protoc writes it, and re-encoding them gave these same bytes).
 */
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("the FileDescriptorProto of a .proto file", () => {
  it("proto3: a map as a nested …Entry with map_entry, proto3 optional as a synthetic oneof, an enum with a negative value (ten-byte varint)", () => {
    const text = 'syntax = "proto3"; package shop; message Order { string id = 1; map<string, int32> n = 2; optional Kind kind = 3; enum Kind { A = 0; B = -1; } }';
    expect(base64(fileDescriptorBytes(parseProtobuf(text, [])))).toBe(
      "EgRzaG9wIsIBCgVPcmRlchIOCgJpZBgBIAEoCVICaWQSIAoBbhgCIAMoCzISLnNob3AuT3JkZXIuTkVudHJ5UgFuEikKBGtpbmQYAyABKA4yEC5zaG9wLk9yZGVyLktpbmRIAFIEa2luZIgBARo0CgZORW50cnkSEAoDa2V5GAEgASgJUgNrZXkSFAoFdmFsdWUYAiABKAVSBXZhbHVlOgI4ASIdCgRLaW5kEgUKAUEQABIOCgFCEP///////////wFCBwoFX2tpbmRiBnByb3RvMw==",
    );
  });

  it("imports as dependencies, full type names, field and file options, oneofs, reserved ranges (end exclusive) and names, a streaming method, json_name", () => {
    const text = `syntax = "proto3"; package shop.v1;
import "google/protobuf/timestamp.proto";
option java_package = "com.shop";
message Order {
  string order_id = 1;
  repeated Line lines = 2 [packed = true, deprecated = true];
  map<string, int64> counts_by_sku = 3;
  google.protobuf.Timestamp at = 4;
  oneof payment { string card = 5; bytes token = 6; }
  reserved 10 to 12, 15;
  reserved "old";
  message Line { sint32 quantity = 1; }
}
service Orders { rpc Watch(stream Order) returns (stream Order.Line); }`;
    const parsed = parseProtobuf(text, []);
    const expected =
      "EgdzaG9wLnYxGh9nb29nbGUvcHJvdG9idWYvdGltZXN0YW1wLnByb3RvIvICCgVPcmRlchIZCghvcmRlcl9pZBgBIAEoCVIHb3JkZXJJZBIvCgVsaW5lcxgCIAMoCzITLnNob3AudjEuT3JkZXIuTGluZUIEEAEYAVIFbGluZXMSQwoNY291bnRzX2J5X3NrdRgDIAMoCzIfLnNob3AudjEuT3JkZXIuQ291bnRzQnlTa3VFbnRyeVILY291bnRzQnlTa3USKgoCYXQYBCABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wUgJhdBIUCgRjYXJkGAUgASgJSABSBGNhcmQSFgoFdG9rZW4YBiABKAxIAFIFdG9rZW4aIgoETGluZRIaCghxdWFudGl0eRgBIAEoEVIIcXVhbnRpdHkaPgoQQ291bnRzQnlTa3VFbnRyeRIQCgNrZXkYASABKAlSA2tleRIUCgV2YWx1ZRgCIAEoA1IFdmFsdWU6AjgBQgkKB3BheW1lbnRKBAgKEA1KBAgPEBBSA29sZDI6CgZPcmRlcnMSMAoFV2F0Y2gSDi5zaG9wLnYxLk9yZGVyGhMuc2hvcC52MS5PcmRlci5MaW5lKAEwAUIKCghjb20uc2hvcGIGcHJvdG8z";
    expect(base64(fileDescriptorBytes(parsed))).toBe(expected);
    expect(serializedSchema(parsed)).toBe(expected);
  });

  it("proto2: required with a default, an extension range to max, a top-level extension with its extendee; no syntax field", () => {
    const text = 'syntax = "proto2"; package q; message A { required int32 a = 1 [default = -5]; extensions 100 to max; } extend A { optional int32 more = 100; }';
    expect(base64(fileDescriptorBytes(parseProtobuf(text, [])))).toBe("EgFxIh8KAUESEAoBYRgBIAIoBToCLTVSAWEqCAhkEICAgIACOhgKBG1vcmUSBC5xLkEYZCABKAVSBG1vcmU=");
  });

  it("leaves custom options out: the same bytes as without them", () => {
    const plain = 'syntax = "proto3"; message M { int32 a = 1; }';
    const custom = 'syntax = "proto3"; option (my.file) = 1; message M { option (my.msg) = { a: 1 }; int32 a = 1 [(my.field) = "x"]; }';
    expect(fileDescriptorBytes(parseProtobuf(custom, []))).toEqual(fileDescriptorBytes(parseProtobuf(plain, [])));
  });

  it("reads a FileDescriptorProto given in base64 (what Confluent's Python serializer registers) back into the same file: the same descriptor bytes and normalized text", () => {
    const files = [
      'syntax = "proto3"; package shop; message Order { string id = 1; map<string, int32> n = 2; optional Kind kind = 3; enum Kind { A = 0; B = -1; } }',
      `syntax = "proto3"; package shop.v1; import "google/protobuf/timestamp.proto"; option java_package = "com.shop";
       message Order { string order_id = 1; repeated Line lines = 2 [packed = true, deprecated = true]; map<string, int64> counts_by_sku = 3;
         google.protobuf.Timestamp at = 4; oneof payment { string card = 5; bytes token = 6; } reserved 10 to 12, 15; reserved "old"; message Line { sint32 quantity = 1; } }
       service Orders { rpc Watch(stream Order) returns (stream Order.Line); }`,
      'syntax = "proto2"; package q; message A { required int32 a = 1 [default = -5]; optional string s = 2 [default = "hi", json_name = "sss"]; extensions 100 to max; } extend A { optional int32 more = 100; }',
    ];
    for (const text of files) {
      const original = parseProtobuf(text, []);
      const serialized = serializedSchema(original);
      const fromDescriptor = parseProtobuf(serialized, []);
      expect(base64(fileDescriptorBytes(fromDescriptor))).toBe(serialized);
      expect(storedText(parseSchema("PROTOBUF", serialized, []), serialized, true)).toBe(storedText(original, text, true));
    }
    // Stored as .proto text, whatever form it came in.
    const order = parseSchema("PROTOBUF", serializedSchema(parseProtobuf(files[0]!, [])), []);
    expect(storedText(order, "", false)).toContain("map<string, int32> n = 2;\n  optional .shop.Order.Kind kind = 3;");
  });

  it("refuses base64 that is not a FileDescriptorProto with 42201", () => {
    for (const text of ["AAAA", "////", "EgRzaG9w" + "IgIKAA=="]) {
      let error: unknown;
      try {
        parseProtobuf(text, []);
      } catch (caught) {
        error = caught;
      }
      expect(error, text).toBeInstanceOf(RegistryError);
      expect((error as RegistryError).message, text).toMatch(/Invalid schema/);
    }
  });
});
