/**
 * The schema registry's deletes (soft, then permanent), references between Avro schemas and the
 * deletes they block, and a subject's modes (READONLY, IMPORT with the ids a schema had in the
 * registry it comes from): docs/schema-registry.md.
 */
import { describe, expect, it } from "vitest";
import { expectRegistryError, recordSchema, register, registeredId, registry, uniqueSubject } from "./support.ts";

const v1 = recordSchema([{ name: "id", type: "long" }]);
const v2 = recordSchema([{ name: "id", type: "long" }, { name: "note", type: "string", default: "" }]);

describe("deleting", () => {
  it("a version: soft first (hidden unless deleted=true), then permanent; each step's errors as Confluent's", async () => {
    const subject = uniqueSubject();
    const id = await registeredId(subject, v1);
    await registeredId(subject, v2);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}/versions/1?permanent=true`), 404, 40407);
    expect((await registry("DELETE", `/subjects/${subject}/versions/1`)).body).toBe(1);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}/versions/1`), 404, 40406);
    expect((await registry("GET", `/subjects/${subject}/versions`)).body).toEqual([2]);
    expect((await registry("GET", `/subjects/${subject}/versions?deleted=true`)).body).toEqual([1, 2]);
    expectRegistryError(await registry("GET", `/subjects/${subject}/versions/1`), 404, 40402);
    expect((await registry("GET", `/subjects/${subject}/versions/1?deleted=true`)).body.id).toBe(id);
    // A soft-deleted schema is still served by id: old records are read with it.
    expect((await registry("GET", `/schemas/ids/${id}`)).body.schema).toBe(v1);
    expect((await registry("DELETE", `/subjects/${subject}/versions/1?permanent=true`)).body).toBe(1);
    expect((await registry("GET", `/subjects/${subject}/versions?deleted=true`)).body).toEqual([2]);
  });

  it("a subject: soft (listed only with deleted=true), then permanent; a new registration continues its version numbers until then", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, v1);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}?permanent=true`), 404, 40405);
    expect((await registry("DELETE", `/subjects/${subject}`)).body).toEqual([1]);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}`), 404, 40404);
    expect((await registry("GET", "/subjects")).body).not.toContain(subject);
    expect((await registry("GET", "/subjects?deleted=true")).body).toContain(subject);
    expectRegistryError(await registry("GET", `/subjects/${subject}/versions`), 404, 40401);
    expect((await registry("DELETE", `/subjects/${subject}?permanent=true`)).body).toEqual([1]);
    expect((await registry("GET", "/subjects?deleted=true")).body).not.toContain(subject);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}`), 404, 40401);
  });
});

describe("references", () => {
  const address = JSON.stringify({ type: "record", name: "Address", namespace: "common", fields: [{ name: "city", type: "string" }] });
  const customer = JSON.stringify({ type: "record", name: "Customer", namespace: "shop", fields: [{ name: "home", type: "common.Address" }] });

  it("a schema uses the named types of the schemas it references; referencedby names it; the referenced version cannot be deleted", async () => {
    const addressSubject = uniqueSubject("address");
    const customerSubject = uniqueSubject("customer");
    await registeredId(addressSubject, address);
    expectRegistryError(await register(customerSubject, customer), 422, 42201); // without the reference, an undefined name
    const references = [{ name: "common.Address", subject: addressSubject, version: 1 }];
    const id = await registeredId(customerSubject, customer, { references });
    expect((await registry("GET", `/subjects/${customerSubject}/versions/1`)).body.references).toEqual(references);
    expect((await registry("GET", `/schemas/ids/${id}`)).body).toEqual({ schema: customer, references });
    expect((await registry("GET", `/subjects/${addressSubject}/versions/1/referencedby`)).body).toEqual([id]);
    expectRegistryError(await registry("DELETE", `/subjects/${addressSubject}/versions/1`), 422, 42206);
    expectRegistryError(await registry("DELETE", `/subjects/${addressSubject}`), 422, 42206);
    expect((await registry("POST", `/subjects/${customerSubject}`, { schema: customer, references })).body.id).toBe(id);
  });

  it("a reference to a version that does not exist is an invalid schema", async () => {
    const message = expectRegistryError(await register(uniqueSubject(), customer, { references: [{ name: "common.Address", subject: uniqueSubject(), version: 1 }] }), 422, 42201);
    expect(message).toMatch(/does not exist/);
  });
});

describe("modes", () => {
  it("READONLY refuses registration and deletion with 42205", async () => {
    const subject = uniqueSubject();
    await registeredId(subject, v1);
    expectRegistryError(await registry("GET", `/mode/${subject}`), 404, 40409);
    expect((await registry("PUT", `/mode/${subject}`, { mode: "READONLY" })).body).toEqual({ mode: "READONLY" });
    expect((await registry("GET", `/mode/${subject}`)).body).toEqual({ mode: "READONLY" });
    expectRegistryError(await register(subject, v2), 422, 42205);
    expectRegistryError(await registry("DELETE", `/subjects/${subject}`), 422, 42205);
    expect((await registry("DELETE", `/mode/${subject}`)).body).toEqual({ mode: "READONLY" });
    await registeredId(subject, v2);
    expectRegistryError(await registry("PUT", `/mode/${subject}`, { mode: "SOMETIMES" }), 422, 42204);
  });

  it("IMPORT registers with the id and version given, never over another schema's id, and only over an empty subject unless forced", async () => {
    const occupied = uniqueSubject();
    await registeredId(occupied, v1);
    expectRegistryError(await registry("PUT", `/mode/${occupied}`, { mode: "IMPORT" }), 422, 42205);
    expect((await registry("PUT", `/mode/${occupied}?force=true`, { mode: "IMPORT" })).status).toBe(200);

    const subject = uniqueSubject();
    expect((await registry("PUT", `/mode/${subject}`, { mode: "IMPORT" })).status).toBe(200);
    const importedId = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const imported = recordSchema([{ name: "imported", type: "string" }, { name: "n", type: "int", default: importedId % 1000 }]);
    expect(await registeredId(subject, imported, { id: importedId, version: 3 })).toBe(importedId);
    expect((await registry("GET", `/subjects/${subject}/versions/3`)).body.id).toBe(importedId);
    expect((await registry("GET", `/schemas/ids/${importedId}`)).body.schema).toBe(imported);
    expectRegistryError(await register(subject, v2, { id: importedId }), 422, 42205); // another schema's id
    expectRegistryError(await register(subject, v2), 422, 42205); // IMPORT takes an id
    expectRegistryError(await register(uniqueSubject(), v2, { id: importedId + 1 }), 422, 42205); // an id outside IMPORT
  });
});
