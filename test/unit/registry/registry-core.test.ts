import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { avroReadIssues } from "../../../src/registry/avro-compatibility.ts";
import { parseAvro } from "../../../src/registry/avro-parse.ts";
import { compatibilityLevels, type CompatibilityLevel } from "../../../src/registry/compatibility.ts";
import { deleteVersion, setConfig } from "../../../src/registry/registry-admin.ts";
import { RegistryCore } from "../../../src/registry/registry-core.ts";
import { registrySubjectsMax, registryVersionsPerSubjectMax } from "../../../src/limits.ts";
import { RegistryError } from "../../../src/registry/registry-errors.ts";
import { MemoryRegistryStore } from "./support/memory-registry-store.ts";

/**
 * The registry's rules over any sequence of registrations and deletes (property tests in Node,
 * over the memory store): what must hold whatever a client does.
 */

/** A few record schemas that evolve in every direction: fields with and without defaults, promotions. */
const fieldPool = [
  { name: "a", type: "int" },
  { name: "a", type: "long" },
  { name: "b", type: "string" },
  { name: "b", type: "string", default: "" },
  { name: "c", type: ["null", "int"], default: null },
] as const;
const schemaArbitrary = fc.subarray([...fieldPool.keys()], { minLength: 1 }).map((picks) => {
  const fields = new Map<string, unknown>();
  for (const pick of picks) fields.set(fieldPool[pick]!.name, fieldPool[pick]);
  return JSON.stringify({ type: "record", name: "R", fields: [...fields.values()] });
});

type Step = { kind: "register"; subject: string; schema: string } | { kind: "delete"; subject: string } | { kind: "level"; subject: string; level: CompatibilityLevel };
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("register" as const), subject: fc.constantFrom("x", "y"), schema: schemaArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), subject: fc.constantFrom("x", "y") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("level" as const), subject: fc.constantFrom("x", "y"), level: fc.constantFrom(...compatibilityLevels) }) },
);

const reads = (reader: string, writer: string) => avroReadIssues(parseAvro(reader).type, parseAvro(writer).type).length === 0;

function run(steps: Step[]) {
  const store = new MemoryRegistryStore();
  const core = new RegistryCore(store);
  for (const step of steps) {
    try {
      if (step.kind === "register") core.register(step.subject, { schema: step.schema }, false);
      else if (step.kind === "delete") deleteVersion(core, step.subject, "latest", false);
      else setConfig(core, step.subject, step.level);
    } catch (error) {
      if (!(error instanceof RegistryError)) throw error;
    }
  }
  return store;
}

describe("the registry's rules over any sequence of calls", () => {
  it("keeps ids dense from 1 and one per schema text", () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 30 }), (steps) => {
        const store = run(steps);
        const ids = [...store.schemas.keys()].sort((a, b) => a - b);
        const texts = [...store.schemas.values()].map((schema) => schema.schema);
        return ids.every((id, index) => id === index + 1) && new Set(texts).size === texts.length;
      }),
    );
  });

  it("gives a subject's versions increasing numbers, whatever was deleted", () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 30 }), (steps) => {
        const store = run(steps);
        for (const subject of ["x", "y"]) {
          const rows = store.versionsOf(subject);
          if (!rows.every((row, index) => index === 0 || row.version > rows[index - 1]!.version)) return false;
        }
        return true;
      }),
    );
  });

  it("registers under BACKWARD only what reads the latest live version (or what the subject already holds, answered with its id)", () => {
    fc.assert(
      fc.property(fc.array(schemaArbitrary, { minLength: 2, maxLength: 8 }), (schemas) => {
        const store = new MemoryRegistryStore();
        const core = new RegistryCore(store);
        for (const schema of schemas) {
          const live = store.versionsOf("s").filter((row) => !row.deleted);
          const held = live.some((row) => store.schemaById(row.schemaId)!.schema === schema);
          const latest = live.at(-1) && store.schemaById(live.at(-1)!.schemaId)!.schema;
          let accepted = true;
          try {
            core.register("s", { schema }, false);
          } catch {
            accepted = false;
          }
          const expected = held || latest === undefined || reads(schema, latest);
          if (accepted !== expected) return false;
        }
        return true;
      }),
    );
  });

  it("answers the same id when a subject registers a schema it already holds, and makes no new version", () => {
    const core = new RegistryCore(new MemoryRegistryStore());
    const schema = JSON.stringify({ type: "record", name: "R", fields: [{ name: "a", type: "int" }] });
    expect(core.register("s", { schema }, false)).toEqual({ id: 1 });
    expect(core.register("s", { schema: JSON.stringify(JSON.parse(schema), null, 2) }, false)).toEqual({ id: 1 });
    expect(core.versions("s", false)).toEqual([1]);
  });

  it("bounds the versions of a subject, soft-deleted ones included (registryVersionsPerSubjectMax)", () => {
    const core = new RegistryCore(new MemoryRegistryStore());
    setConfig(core, "s", "NONE");
    for (let version = 1; version <= registryVersionsPerSubjectMax; version++) {
      core.register("s", { schema: JSON.stringify({ type: "fixed", name: "F", size: version }) }, false);
    }
    deleteVersion(core, "s", "latest", false);
    expect(() => core.register("s", { schema: JSON.stringify({ type: "fixed", name: "F", size: 0 }) }, false)).toThrow(/at most 1000 versions/);
  });

  it("bounds the subjects of the registry (registrySubjectsMax)", () => {
    const store = new MemoryRegistryStore();
    const core = new RegistryCore(store);
    const schema = JSON.stringify("string");
    for (let index = 0; index < registrySubjectsMax; index++) store.insertVersion({ subject: `s${index}`, version: 1, schemaId: 1, deleted: true });
    store.insertSchema({ id: 1, schemaType: "AVRO", schema, references: [] });
    expect(() => core.register("one-more", { schema }, false)).toThrow(/at most 10000 subjects/);
    expect(core.register("s0", { schema }, false)).toEqual({ id: 1 }); // a subject the registry holds may still grow
  });

  it("bounds how deep references nest (registryReferenceDepthMax)", () => {
    const core = new RegistryCore(new MemoryRegistryStore());
    let previous: string | undefined;
    let refused: unknown;
    for (let depth = 0; depth < 40 && refused === undefined; depth++) {
      const schema = JSON.stringify({ type: "record", name: `R${depth}`, fields: previous ? [{ name: "inner", type: previous }] : [] });
      try {
        core.register(`r${depth}`, { schema, references: previous ? [{ name: previous, subject: `r${depth - 1}`, version: 1 }] : [] }, false);
      } catch (error) {
        refused = error;
      }
      previous = `R${depth}`;
    }
    expect(refused).toBeInstanceOf(RegistryError);
    expect((refused as RegistryError).code).toBe("LIMIT_EXCEEDED");
  });
});
