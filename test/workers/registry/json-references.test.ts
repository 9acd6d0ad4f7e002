/**
 * References between JSON schemas through the registry's routes (issue 30; docs/schema-registry.md,
 * "References between JSON schemas"): a referrer registered with `references` whose `$ref`s name
 * them, `referencedby`, the referenced version kept from deletion (42206), a `$ref` no reference
 * gives refused (42201), and full validation and `decode=schema` reading through the reference.
 */
import { describe, expect, it } from "vitest";
import { api, createTopic, expectError, uniqueTopic } from "../support/http.ts";
import { expectRegistryError, register, registeredId, registry, uniqueSubject } from "./support.ts";
import { produceJson, wire } from "./wire-support.ts";

const utf8 = new TextEncoder();
const json = (value: unknown) => [...utf8.encode(JSON.stringify(value))];

const address = {
  $id: "https://example.com/schemas/address.schema.json",
  type: "object",
  properties: { street: { type: "string" }, zip: { $ref: "#/definitions/zip" } },
  required: ["street"],
  definitions: { zip: { type: "string", pattern: "^[0-9]{5}$" } },
};
const customer = {
  $id: "https://example.com/schemas/customer.schema.json",
  type: "object",
  properties: { name: { type: "string" }, address: { $ref: "address.schema.json" } },
  required: ["name", "address"],
};

describe("references between JSON schemas", () => {
  it("registers a referrer, lists it in referencedby, keeps the referenced version from deletion, and refuses a $ref no reference gives", async () => {
    const addressSubject = uniqueSubject("address");
    const addressId = await registeredId(addressSubject, JSON.stringify(address), { schemaType: "JSON" });
    const references = [{ name: "https://example.com/schemas/address.schema.json", subject: addressSubject, version: 1 }];
    const customerSubject = uniqueSubject("customer");
    const customerId = await registeredId(customerSubject, JSON.stringify(customer), { schemaType: "JSON", references });
    expect(customerId).not.toBe(addressId);

    const version = await registry("GET", `/subjects/${customerSubject}/versions/1`);
    expect(version.body).toMatchObject({ id: customerId, schemaType: "JSON", references });
    const referencedBy = await registry("GET", `/subjects/${addressSubject}/versions/1/referencedby`);
    expect(referencedBy.body).toEqual([customerId]);
    expect(expectRegistryError(await registry("DELETE", `/subjects/${addressSubject}/versions/1`), 422, 42206)).toMatch(/One or more references exist/);

    const unresolved = await register(uniqueSubject("orphan"), JSON.stringify(customer), { schemaType: "JSON" });
    expect(expectRegistryError(unresolved, 422, 42201)).toMatch(/\/properties\/address\/\$ref "address.schema.json" does not resolve/);
    const missingVersion = await register(uniqueSubject("orphan"), JSON.stringify(customer), { schemaType: "JSON", references: [{ ...references[0], version: 9 }] });
    expect(expectRegistryError(missingVersion, 422, 42201)).toMatch(/names version 9 of subject/);
  });

  it("full validation refuses a record the referenced schema refuses; decode=schema reads the one written", async () => {
    const topic = uniqueTopic("json-refs");
    await createTopic(topic, { configs: { "tributary.value.schema.validation": "full" } });
    const addressSubject = `${topic}-address`;
    await registeredId(addressSubject, JSON.stringify(address), { schemaType: "JSON" });
    const references = [{ name: "https://example.com/schemas/address.schema.json", subject: addressSubject, version: 1 }];
    const id = await registeredId(`${topic}-value`, JSON.stringify(customer), { schemaType: "JSON", references });

    const good = { name: "Ada", address: { street: "Main St", zip: "12345" } };
    const written = await produceJson(topic, [{ value: wire(id, json(good)) }]);
    expect(written.status, written.text).toBe(200);
    // The zip breaks the pattern of the address's own definitions, seen through the reference.
    const refused = expectError(await produceJson(topic, [{ value: wire(id, json({ name: "Bob", address: { street: "x", zip: "1" } })) }]), 400, "INVALID_RECORD");
    expect(refused.message).toMatch(new RegExp(`^record 0: value does not conform to schema id ${id} \\(JSON\\) at /address/zip: "1" does not match pattern`));

    const answer = await api("GET", `/v1/topics/${topic}/partitions/0/records?offset=0&encoding=base64&decode=schema`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.records).toHaveLength(1);
    expect(answer.body.records[0]).toMatchObject({ value: good, valueSchemaId: id });
    expect(answer.body.records[0]).not.toHaveProperty("valueDecodeError");
  });
});
