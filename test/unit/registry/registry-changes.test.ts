/**
 * The registry's changes as its leader pushes them (src/registry/registry-changes.ts): a call's
 * writes, recorded as the rules made them and replayed in order on another store, leave that
 * store with the same rows, whatever the calls (registrations, deletes, configs), so a replica
 * that takes every change holds the leader's registry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deleteSubject, deleteVersion, setConfig } from "../../../src/registry/registry-admin.ts";
import { RecordingRegistryStore, applyChanges } from "../../../src/registry/registry-changes.ts";
import { RegistryCore } from "../../../src/registry/registry-core.ts";
import { RegistryError } from "../../../src/registry/registry-errors.ts";
import { MemoryRegistryStore } from "./support/memory-registry-store.ts";

const subjects = ["a", "b", "c"];
const schemaText = (fields: number) =>
  JSON.stringify({ type: "record", name: "R", fields: Array.from({ length: fields }, (_, index) => ({ name: `f${index}`, type: "int", default: 0 })) });

type Call = (core: RegistryCore) => unknown;
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ subject: fc.constantFrom(...subjects), fields: fc.integer({ min: 0, max: 3 }) }).map(({ subject, fields }) => (core: RegistryCore) => core.register(subject, { schema: schemaText(fields) }, false)),
  fc.record({ subject: fc.constantFrom(...subjects), version: fc.integer({ min: 1, max: 3 }), permanent: fc.boolean() }).map(
    ({ subject, version, permanent }) => (core: RegistryCore) => deleteVersion(core, subject, String(version), permanent),
  ),
  fc.record({ subject: fc.constantFrom(...subjects), permanent: fc.boolean() }).map(({ subject, permanent }) => (core: RegistryCore) => deleteSubject(core, subject, permanent)),
  fc.record({ subject: fc.option(fc.constantFrom(...subjects), { nil: undefined }), level: fc.constantFrom("NONE", "BACKWARD", "FULL") }).map(
    ({ subject, level }) => (core: RegistryCore) => setConfig(core, subject, level),
  ),
);

function rowsOf(store: MemoryRegistryStore) {
  return {
    schemas: [...store.schemas.values()].sort((a, b) => a.id - b.id),
    versions: [...store.versions].sort((a, b) => a.subject.localeCompare(b.subject) || a.version - b.version),
    settings: [...store.settings.entries()].sort(),
  };
}

describe("a registry's changes replayed", () => {
  it("leave the replica with the leader's rows after any sequence of calls", () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 30 }), (calls) => {
        const leader = new MemoryRegistryStore();
        const recording = new RecordingRegistryStore(leader);
        const core = new RegistryCore(recording);
        const replica = new MemoryRegistryStore();
        for (const body of calls) {
          try {
            body(core);
          } catch (error) {
            if (!(error instanceof RegistryError)) throw error;
          }
          applyChanges(replica, recording.takeChanges());
          expect(rowsOf(replica)).toEqual(rowsOf(leader));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("records nothing for a call that only reads", () => {
    const recording = new RecordingRegistryStore(new MemoryRegistryStore());
    const core = new RegistryCore(recording);
    core.register("a", { schema: schemaText(1) }, false);
    recording.takeChanges();
    expect(core.subjects(false, "")).toEqual(["a"]);
    core.lookup("a", { schema: schemaText(1) }, false, false);
    expect(recording.takeChanges()).toEqual([]);
  });
});
