import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compatibilityIssues, compatibilityLevels, type Issue } from "../../../src/registry/compatibility.ts";

/**
 * How a level turns a read rule into a verdict. The schemas here are integers and the rule is
 * "a reader reads writers no larger than itself", so each level's direction and reach show.
 */
const readIssues = (reader: number, writer: number): Issue[] => (writer <= reader ? [] : [{ kind: "TYPE_MISMATCH", location: "/", message: `${reader} < ${writer}` }]);
const versions = (...schemas: number[]) => schemas.map((schema, index) => ({ version: index + 1, schema }));

describe("compatibility levels", () => {
  it("BACKWARD: the new schema reads the latest only", () => {
    expect(compatibilityIssues("BACKWARD", 5, versions(9, 5), readIssues)).toEqual([]);
    expect(compatibilityIssues("BACKWARD", 5, versions(5, 9), readIssues)).toHaveLength(2); // the issue and the level
  });

  it("BACKWARD_TRANSITIVE: the new schema reads every version", () => {
    expect(compatibilityIssues("BACKWARD_TRANSITIVE", 5, versions(9, 5), readIssues)[0]).toMatch(/version 1/);
  });

  it("FORWARD: the latest reads the new schema's data", () => {
    expect(compatibilityIssues("FORWARD", 5, versions(1, 7), readIssues)).toEqual([]);
    expect(compatibilityIssues("FORWARD", 9, versions(1, 7), readIssues)[0]).toMatch(/version 2 cannot read/);
    expect(compatibilityIssues("FORWARD_TRANSITIVE", 5, versions(1, 7), readIssues)[0]).toMatch(/version 1 cannot read/);
  });

  it("FULL: both directions, so only an equal schema passes here", () => {
    expect(compatibilityIssues("FULL", 5, versions(1, 5), readIssues)).toEqual([]);
    expect(compatibilityIssues("FULL", 6, versions(5), readIssues)).not.toEqual([]);
    expect(compatibilityIssues("FULL_TRANSITIVE", 5, versions(1, 5), readIssues)).not.toEqual([]);
  });

  it("NONE and a first version check nothing", () => {
    expect(compatibilityIssues("NONE", 1, versions(9), readIssues)).toEqual([]);
    for (const level of compatibilityLevels) expect(compatibilityIssues(level, 1, [], readIssues)).toEqual([]);
  });

  it("a transitive level refuses whatever its plain level refuses, and FULL whatever BACKWARD or FORWARD refuses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 6 }), (candidate, schemas) => {
        const refused = (level: (typeof compatibilityLevels)[number]) => compatibilityIssues(level, candidate, versions(...schemas), readIssues).length > 0;
        for (const plain of ["BACKWARD", "FORWARD", "FULL"] as const) if (refused(plain) && !refused(`${plain}_TRANSITIVE`)) return false;
        return refused("FULL") === (refused("BACKWARD") || refused("FORWARD"));
      }),
    );
  });
});
