/**
 * Confluent Schema Registry's API at /registry (docs/schema-registry.md): registration, ids,
 * versions, lookup, compatibility at registration and by the test route, schema types, and the
 * error codes serializers act on.
 */
import { describe, expect, it } from "vitest";
import { expectRegistryError, recordSchema, register, registeredId, registry, uniqueSubject } from "./support.ts";

const v1 = recordSchema([{ name: "id", type: "long" }]);
const v2WithDefault = recordSchema([{ name: "id", type: "long" }, { name: "note", type: "string", default: "" }]);
const v2NoDefault = recordSchema([{ name: "id", type: "long" }, { name: "note", type: "string" }]);

describe("registering and reading schemas", () => {
  it("answers an id; the same schema under another subject gets the same id; a new schema the next id", async () => {
    const subject = uniqueSubject();
    const id = await registeredId(subject, v1);
    expect(await registeredId(uniqueSubject(), v1)).toBe(id);
    expect(await registeredId(subject, v1)).toBe(id); // registering again is not a new version
    const second = await registeredId(subject, v2WithDefault);
    expect(second).toBeGreaterThan(id);
    expect((await registry("GET", `/subjects/${subject}/versions`)).body).toEqual([1, 2]);
  });

  it("serves a version, the latest, its raw schema and the schema by id, in Confluent's media type", async () => {
    const subject = uniqueSubject();
    const id = await registeredId(subject, JSON.stringify(JSON.parse(v1), null, 2));
    const version = await registry("GET", `/subjects/${subject}/versions/1`);
    expect(version.headers.get("content-type")).toBe("application/vnd.schemaregistry.v1+json");
    expect(version.body).toEqual({ subject, id, version: 1, schema: v1 }); // stored without whitespace; AVRO and no references left out
    expect((await registry("GET", `/subjects/${subject}/versions/latest`)).body.version).toBe(1);
    expect((await registry("GET", `/subjects/${subject}/versions/-1`)).body.version).toBe(1);
    expect(JSON.parse((await registry("GET", `/subjects/${subject}/versions/1/schema`)).text)).toEqual(JSON.parse(v1));
    expect((await registry("GET", `/schemas/ids/${id}`)).body).toEqual({ schema: v1 });
    expect(JSON.parse((await registry("GET", `/schemas/ids/${id}/schema`)).text)).toEqual(JSON.parse(v1));
    expect((await registry("GET", `/schemas/ids/${id}/subjects`)).body).toContain(subject);
    expect((await registry("GET", `/schemas/ids/${id}/versions`)).body).toContainEqual({ subject, version: 1 });
    expect((await registry("GET", "/subjects")).body).toContain(subject);
    expect((await registry("GET", `/subjects?subjectPrefix=${subject}`)).body).toEqual([subject]);
  });

  it("looks a schema up under a subject (POST /subjects/{s}), whatever its whitespace", async () => {
    const subject = uniqueSubject();
    const id = await registeredId(subject, v1);
    const found = await registry("POST", `/subjects/${subject}`, { schema: JSON.stringify(JSON.parse(v1), null, 4) });
    expect(found.body).toEqual({ subject, id, version: 1, schema: v1 });
    expectRegistryError(await registry("POST", `/subjects/${subject}`, { schema: v2WithDefault }), 404, 40403);
    expectRegistryError(await registry("POST", `/subjects/${uniqueSubject()}`, { schema: v1 }), 404, 40401);
  });

  it("normalize=true gives one id to schemas that differ only in layout, key order and shorthand", async () => {
    const subject = uniqueSubject();
    const a = JSON.stringify({ type: "record", name: "N", namespace: "test", fields: [{ name: "x", type: { type: "int" } }] });
    const b = JSON.stringify({ fields: [{ type: "int", name: "x" }], name: "test.N", type: "record" });
    const id = await registeredId(subject, a, {}, "?normalize=true");
    expect(await registeredId(subject, b, {}, "?normalize=true")).toBe(id);
    expect((await registry("GET", `/subjects/${subject}/versions`)).body).toEqual([1]);
    expect((await registry("POST", `/subjects/${subject}?normalize=true`, { schema: b })).body.id).toBe(id);
  });

  it("takes any subject name, a slash percent-encoded in the path", async () => {
    const subject = `${uniqueSubject()}/with slash:and.dots`;
    const id = await registeredId(subject, v1);
    expect((await registry("GET", `/subjects/${encodeURIComponent(subject)}/versions/1`)).body).toMatchObject({ subject, id });
  });

  it("serves a schema by id from the isolate's cache: the id names that schema forever, even once its subject is deleted", async () => {
    const subject = uniqueSubject();
    const schema = recordSchema([{ name: "cached", type: "string" }, { name: "tag", type: "string", default: subject }]);
    const id = await registeredId(subject, schema);
    expect((await registry("GET", `/schemas/ids/${id}`)).body).toEqual({ schema });
    expect((await registry("DELETE", `/subjects/${subject}`)).status).toBe(200);
    expect((await registry("DELETE", `/subjects/${subject}?permanent=true`)).status).toBe(200);
    expect((await registry("GET", `/schemas/ids/${id}`)).body).toEqual({ schema }); // the registry itself no longer has it: 40403
    expectRegistryError(await registry("GET", `/schemas/ids/${id}/versions`), 404, 40403);
  });

  it("refuses an invalid schema with 42201 and the parser's reason, and types it does not support naming the type", async () => {
    const message = expectRegistryError(await register(uniqueSubject(), JSON.stringify({ type: "record", name: "R", fields: [{ name: "a", type: "nope" }] })), 422, 42201);
    expect(message).toMatch(/undefined name: "nope"/);
    expectRegistryError(await register(uniqueSubject(), "{not json"), 422, 42201);
    expect(expectRegistryError(await register(uniqueSubject(), JSON.stringify({ type: "text" }), { schemaType: "JSON" }), 422, 42201)).toMatch(/unknown type/);
    expect(expectRegistryError(await register(uniqueSubject(), "syntax = \"proto3\";\nmessage M { string a = 1 }", { schemaType: "PROTOBUF" }), 422, 42201)).toMatch(/line 2: expected ";"/);
    expect(expectRegistryError(await register(uniqueSubject(), "{}", { schemaType: "XML" }), 422, 42201)).toMatch(/XML/);
    expect((await registry("GET", "/schemas/types")).body).toEqual(["AVRO", "JSON", "PROTOBUF"]);
  });

  it("registers JSON schemas (schemaType JSON), checked by JSON Schema's rules: a property added to an open content model is refused", async () => {
    const subject = uniqueSubject();
    const open = JSON.stringify({ type: "object", properties: { id: { type: "integer" } } });
    const id = await registeredId(subject, open, { schemaType: "JSON" });
    expect((await registry("GET", `/schemas/ids/${id}`)).body).toEqual({ schema: open, schemaType: "JSON" });
    expect((await registry("GET", `/subjects/${subject}/versions/1`)).body).toMatchObject({ schemaType: "JSON", id });
    const added = JSON.stringify({ type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } });
    expect(expectRegistryError(await register(subject, added, { schemaType: "JSON" }), 409, 409)).toMatch(/PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL/);
    const widened = JSON.stringify({ type: "object", properties: { id: { type: "number" } } });
    expect(await registeredId(subject, widened, { schemaType: "JSON" })).toBeGreaterThan(id);
    // The same text as another type is another schema; a subject's versions of two types never read each other.
    expect(expectRegistryError(await register(subject, JSON.stringify("string")), 409, 409)).toMatch(/TYPE_MISMATCH/);
  });

  it("answers 40401, 40402, 40403 and 42202 as Confluent does", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, v1);
    expectRegistryError(await registry("GET", `/subjects/${uniqueSubject()}/versions`), 404, 40401);
    expectRegistryError(await registry("GET", `/subjects/${subject}/versions/7`), 404, 40402);
    expectRegistryError(await registry("GET", `/subjects/${subject}/versions/first`), 422, 42202);
    expectRegistryError(await registry("GET", `/subjects/${subject}/versions/0`), 422, 42202);
    expectRegistryError(await registry("GET", "/schemas/ids/999999999"), 404, 40403);
    expectRegistryError(await registry("GET", "/schemas/ids/x"), 404, 40403);
    expectRegistryError(await registry("POST", `/subjects/${subject}/versions`, "{"), 422, 422);
    expectRegistryError(await registry("POST", `/subjects/${subject}/versions`, { schemaa: v1 }), 422, 422);
    expectRegistryError(await registry("GET", "/nothing"), 404, 404);
  });

  it("answers a served path asked with another method 405 with Allow, as Confluent's does; an unserved path 404", async () => {
    const subject = uniqueSubject();
    const patched = await registry("PATCH", `/subjects/${subject}/versions`, { schema: v1 });
    expect(expectRegistryError(patched, 405, 405)).toBe("HTTP 405 Method Not Allowed");
    expect(patched.headers.get("Allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect((await registry("DELETE", "/schemas/ids/1")).headers.get("Allow")).toBe("GET, HEAD, OPTIONS");
    expect((await registry("POST", "/config")).headers.get("Allow")).toBe("GET, HEAD, PUT, DELETE, OPTIONS");
    expect((await registry("GET", `/subjects/${subject}/versions`)).status).toBe(404); // served: the subject does not exist
    const unserved = await registry("PUT", "/nothing/here");
    expectRegistryError(unserved, 404, 404);
    expect(unserved.headers.get("Allow")).toBeNull();
  });
});

describe("compatibility", () => {
  it("registration is checked against the latest version at BACKWARD by default: 409 with the reason", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, v1);
    const message = expectRegistryError(await register(subject, v2NoDefault), 409, 409);
    expect(message).toMatch(/READER_FIELD_MISSING_DEFAULT_VALUE/);
    await registeredId(subject, v2WithDefault);
  });

  it("the test route answers is_compatible, with the messages under verbose=true", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, v1);
    expect((await registry("POST", `/compatibility/subjects/${subject}/versions/latest`, { schema: v2WithDefault })).body).toEqual({ is_compatible: true });
    const refused = await registry("POST", `/compatibility/subjects/${subject}/versions/1?verbose=true`, { schema: v2NoDefault });
    expect(refused.body.is_compatible).toBe(false);
    expect(refused.body.messages.join(" ")).toMatch(/READER_FIELD_MISSING_DEFAULT_VALUE/);
    expect((await registry("POST", `/compatibility/subjects/${subject}/versions`, { schema: v2NoDefault })).body).toEqual({ is_compatible: false });
    expectRegistryError(await registry("POST", `/compatibility/subjects/${subject}/versions/9`, { schema: v1 }), 404, 40402);
    expectRegistryError(await registry("POST", `/compatibility/subjects/${subject}/versions/latest`, { schema: "{" }), 422, 42201);
  });

  it("a subject's level: NONE lets anything in, FORWARD_TRANSITIVE checks every version the other way", async () => {
    const subject = uniqueSubject();
    expectRegistryError(await registry("GET", `/config/${subject}`), 404, 40408);
    expect((await registry("GET", `/config/${subject}?defaultToGlobal=true`)).body.compatibilityLevel).toMatch(/^[A-Z_]+$/);
    expect((await registry("PUT", `/config/${subject}`, { compatibility: "NONE" })).body).toEqual({ compatibility: "NONE" });
    expect((await registry("GET", `/config/${subject}`)).body).toEqual({ compatibilityLevel: "NONE" });
    await registeredId(subject, v1);
    await registeredId(subject, JSON.stringify("string"));
    expect((await registry("PUT", `/config/${subject}`, { compatibility: "FORWARD_TRANSITIVE" })).status).toBe(200);
    // "bytes" is read by version 2 ("string", a promotion) but not by version 1, a record.
    expectRegistryError(await register(subject, JSON.stringify("bytes")), 409, 409);
    expectRegistryError(await registry("PUT", `/config/${subject}`, { compatibility: "SIDEWAYS" }), 422, 42203);
    expect((await registry("DELETE", `/config/${subject}`)).body).toEqual({ compatibilityLevel: "FORWARD_TRANSITIVE" });
    expectRegistryError(await registry("GET", `/config/${subject}`), 404, 40408);
  });
});
