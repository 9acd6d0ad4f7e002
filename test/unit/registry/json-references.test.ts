/**
 * References between JSON schemas (src/registry/json-schema-refs.ts, json-schema-parse.ts and
 * the registry's rules over them): how a `$ref` finds a reference's document (by its name, by
 * its name against the referrer's `$id`, by the document's own `$id`, a pointer into it), what
 * registration refuses, compatibility and full validation seen through a reference.
 */
import { describe, expect, it } from "vitest";
import { DatumError } from "../../../src/registry/datum-error.ts";
import { checkDatum } from "../../../src/registry/datum-read.ts";
import { parseJsonSchema } from "../../../src/registry/json-schema-parse.ts";
import type { JsonReferenced } from "../../../src/registry/json-schema-types.ts";
import { resolveUri } from "../../../src/registry/json-schema-refs.ts";
import { validateJson } from "../../../src/registry/json-schema-validate.ts";
import { deleteVersion, schemaTexts, setConfig } from "../../../src/registry/registry-admin.ts";
import { RegistryCore } from "../../../src/registry/registry-core.ts";
import { RegistryError } from "../../../src/registry/registry-errors.ts";
import { parseSchema, schemaTypeOf } from "../../../src/registry/schema-types.ts";
import { registryReferenceDepthMax, registryResolvedReferencesMax } from "../../../src/limits.ts";
import { MemoryRegistryStore } from "./support/memory-registry-store.ts";

const text = (schema: unknown) => JSON.stringify(schema);

/** An address whose zip code is defined inside it: "#/definitions/zip" there is the address's, not the referrer's. */
const address = {
  type: "object",
  properties: { street: { type: "string" }, zip: { $ref: "#/definitions/zip" } },
  required: ["street"],
  definitions: { zip: { type: "string", pattern: "^[0-9]{5}$" } },
};
const customer = {
  type: "object",
  properties: { name: { type: "string" }, address: { $ref: "address.json" }, zip: { $ref: "address.json#/definitions/zip" } },
  definitions: { zip: { type: "integer" } },
};

function failure(parsed: ReturnType<typeof parseJsonSchema>, value: unknown): string | undefined {
  try {
    validateJson(parsed, value);
    return undefined;
  } catch (error) {
    if (error instanceof DatumError) return error.message;
    throw error;
  }
}

function registryError(run: () => unknown): RegistryError {
  try {
    run();
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw error;
  }
  throw new Error("expected a RegistryError");
}

describe("resolving a $ref into a reference's document", () => {
  it("resolves URIs against a base, keeping relative names relative", () => {
    expect(resolveUri("address.json", "")).toBe("address.json");
    expect(resolveUri("#/definitions/zip", "address.json")).toBe("address.json#/definitions/zip");
    expect(resolveUri("../common/zip.json", "schemas/address.json")).toBe("common/zip.json");
    expect(resolveUri("address.schema.json", "https://example.com/schemas/customer.schema.json")).toBe("https://example.com/schemas/address.schema.json");
    expect(resolveUri("https://other.example/x.json#/a", "https://example.com/")).toBe("https://other.example/x.json#/a");
  });

  it("finds a document by its reference's name, and pointers inside it against it", () => {
    const parsed = parseJsonSchema(text(customer), [{ name: "address.json", json: parseJsonSchema(text(address), [], "address.json") }]);
    expect(failure(parsed, { name: "Ada", address: { street: "Main St", zip: "12345" }, zip: "54321" })).toBeUndefined();
    // The address's own "#/definitions/zip" is the address's pattern, not the referrer's integer.
    expect(failure(parsed, { address: { street: "Main St", zip: "123" } })).toMatch(/^at \/address\/zip: "123" does not match pattern/);
    expect(failure(parsed, { address: { zip: "12345" } })).toMatch(/^at \/address: required property "street" is missing/);
    // A pointer into the referenced document from the referrer.
    expect(failure(parsed, { zip: 12345 })).toMatch(/^at \/zip: 12345 is not of type string/);
  });

  it("finds a document named by URL through a relative $ref under the referrer's $id, and by the $id it declares", () => {
    const byUrl = parseJsonSchema(text({ $id: "https://example.com/schemas/customer.schema.json", properties: { address: { $ref: "address.schema.json" } } }), [
      { name: "https://example.com/schemas/address.schema.json", json: parseJsonSchema(text(address), [], "https://example.com/schemas/address.schema.json") },
    ]);
    expect(failure(byUrl, { address: { street: 1 } })).toMatch(/^at \/address\/street: 1 is not of type string/);
    const declared = { $id: "https://example.com/money.json", type: "object", properties: { cents: { type: "integer" } }, required: ["cents"] };
    const byId = parseJsonSchema(text({ properties: { price: { $ref: "https://example.com/money.json" } } }), [{ name: "money", json: parseJsonSchema(text(declared), [], "money") }]);
    expect(failure(byId, { price: { cents: 100 } })).toBeUndefined();
    expect(failure(byId, { price: {} })).toMatch(/^at \/price: required property "cents" is missing/);
  });

  it("follows references of references, each document's relative $refs against its own name", () => {
    const zip = { type: "string", minLength: 5 };
    const nestedAddress = { type: "object", properties: { zip: { $ref: "zip.json" } } };
    const zipDocument: JsonReferenced = { name: "zip.json", json: parseJsonSchema(text(zip), [], "zip.json") };
    const addressDocument: JsonReferenced = { name: "address.json", json: parseJsonSchema(text(nestedAddress), [zipDocument], "address.json") };
    const parsed = parseJsonSchema(text({ properties: { address: { $ref: "address.json" } } }), [addressDocument]);
    expect(failure(parsed, { address: { zip: "123" } })).toMatch(/^at \/address\/zip: a string of 3 characters is shorter than minLength 5/);
  });
});

describe("registering JSON schemas with references", () => {
  function registry(): RegistryCore {
    const core = new RegistryCore(new MemoryRegistryStore());
    core.register("address", { schemaType: "JSON", schema: text(address) }, false);
    return core;
  }
  const referrer = { schemaType: "JSON", schema: text(customer), references: [{ name: "address.json", subject: "address", version: 1 }] };

  it("registers a referrer, lists it as referencing the version, and refuses to delete that version (42206)", () => {
    const core = registry();
    const { id } = core.register("customer", referrer, false);
    expect(id).toBe(2);
    expect(core.version("customer", "1", false).references).toEqual([{ name: "address.json", subject: "address", version: 1 }]);
    expect(core.referencedBy("address", "1")).toEqual([2]);
    const refused = registryError(() => deleteVersion(core, "address", "1", false));
    expect(refused.code).toBe("REFERENCE_EXISTS");
    expect(refused.message).toMatch(/subject=address, version=1/);
    // What the router parses for full validation: the text with its references resolved.
    const [texts] = schemaTexts(core, [id]);
    const parsed = parseSchema(schemaTypeOf(texts!.schemaType), texts!.schema, texts!.references);
    const bytes = new TextEncoder().encode(text({ address: { street: 5 } }));
    expect(() => checkDatum(parsed, bytes, 0, bytes.length)).toThrow(/^at \/address\/street: 5 is not of type string/);
  });

  it("refuses a $ref to a document no reference gives, naming it (42201)", () => {
    const core = registry();
    const missing = registryError(() => core.register("customer", { ...referrer, references: [] }, false));
    expect(missing.code).toBe("INVALID_SCHEMA");
    expect(missing.message).toMatch(/\/properties\/address\/\$ref "address.json" does not resolve: it names no document among the schema's references/);
    const wrongName = registryError(() => core.register("customer", { ...referrer, references: [{ name: "addr.json", subject: "address", version: 1 }] }, false));
    expect(wrongName.message).toMatch(/"address.json" does not resolve/);
    const badPointer = registryError(() => core.register("c", { schemaType: "JSON", schema: text({ $ref: "address.json#/definitions/none" }), references: referrer.references }, false));
    expect(badPointer.code).toBe("INVALID_SCHEMA");
    expect(badPointer.message).toMatch(/"address.json#\/definitions\/none" does not resolve/);
  });

  it("refuses references to versions that do not exist and to schemas of another type (42201)", () => {
    const core = registry();
    for (const references of [[{ name: "address.json", subject: "nobody", version: 1 }], [{ name: "address.json", subject: "address", version: 2 }]]) {
      const error = registryError(() => core.register("customer", { ...referrer, references }, false));
      expect(error.code).toBe("INVALID_SCHEMA");
      expect(error.message).toMatch(/reference address.json names version \d of subject '(nobody|address)', which does not exist/);
    }
    core.register("avro", { schema: text("string") }, false);
    const mixed = registryError(() => core.register("customer", { ...referrer, references: [{ name: "address.json", subject: "avro", version: 1 }] }, false));
    expect(mixed.message).toMatch(/reference address.json is a AVRO schema, not JSON/);
  });

  it("sees a change inside a referenced schema through the referrer when checking compatibility", () => {
    const core = registry();
    core.register("customer", referrer, false);
    setConfig(core, "address", "NONE");
    // The address now requires a zip: a BACKWARD reader of it refuses customers written before.
    core.register("address", { schemaType: "JSON", schema: text({ ...address, required: ["street", "zip"] }) }, false);
    const next = { ...referrer, references: [{ name: "address.json", subject: "address", version: 2 }] };
    const refused = registryError(() => core.register("customer", next, false));
    expect(refused.code).toBe("INCOMPATIBLE_SCHEMA");
    expect(refused.message).toMatch(/REQUIRED_PROPERTY_ADDED.*\/properties\/address\/required/);
    // A compatible change inside the reference (nothing required any more) passes.
    core.register("address", { schemaType: "JSON", schema: text({ ...address, required: [] }) }, false);
    expect(core.register("customer", { ...referrer, references: [{ name: "address.json", subject: "address", version: 3 }] }, false)).toEqual({ id: 5 });
  });

  it("bounds how deep references of references nest (registryReferenceDepthMax)", () => {
    const core = new RegistryCore(new MemoryRegistryStore());
    core.register("level0", { schemaType: "JSON", schema: text({ type: "string" }) }, false);
    let refused: RegistryError | undefined;
    for (let depth = 1; depth <= registryReferenceDepthMax + 2 && refused === undefined; depth++) {
      const request = { schemaType: "JSON", schema: text({ properties: { inner: { $ref: `level${depth - 1}.json` } } }), references: [{ name: `level${depth - 1}.json`, subject: `level${depth - 1}`, version: 1 }] };
      try {
        core.register(`level${depth}`, request, false);
      } catch (error) {
        if (!(error instanceof RegistryError)) throw error;
        refused = error;
        expect(depth).toBeGreaterThan(registryReferenceDepthMax - 1);
      }
    }
    expect(refused?.code).toBe("LIMIT_EXCEEDED");
    expect(refused?.message).toMatch(/references nest deeper than 16/);
  });

  it("bounds the references one schema resolves to, counted through every level (registryResolvedReferencesMax)", () => {
    // Each level names the one below twice: level n resolves to 2 + 4 + … + 2^n schemas, which depth and width alone allow.
    const core = new RegistryCore(new MemoryRegistryStore());
    core.register("wide0", { schemaType: "JSON", schema: text({ type: "string" }) }, false);
    let refused: RegistryError | undefined;
    let level = 1;
    for (; level <= registryReferenceDepthMax && refused === undefined; level++) {
      const below = `wide${level - 1}`;
      const request = {
        schemaType: "JSON",
        schema: text({ properties: { a: { $ref: `a/${below}.json` }, b: { $ref: `b/${below}.json` } } }),
        references: [
          { name: `a/${below}.json`, subject: below, version: 1 },
          { name: `b/${below}.json`, subject: below, version: 1 },
        ],
      };
      try {
        core.register(`wide${level}`, request, false);
      } catch (error) {
        if (!(error instanceof RegistryError)) throw error;
        refused = error;
      }
    }
    expect(refused?.code).toBe("LIMIT_EXCEEDED");
    expect(refused?.message).toMatch(/more than 1000 schemas/);
    expect(2 ** level - 2).toBeGreaterThan(registryResolvedReferencesMax); // refused at the first level past the bound
    expect(2 ** (level - 1) - 2).toBeLessThanOrEqual(registryResolvedReferencesMax);
  });
});
