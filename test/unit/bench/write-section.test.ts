import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeResults, writeSection } from "../../../bench/report.ts";
import { transactionsHeading } from "../../../bench/transactions.ts";
import { billTransactionsHeading } from "../../../bench/bill.ts";
import { schemaValidationHeading } from "../../../bench/schema-validation.ts";

describe("writeSection", () => {
  const directory = mkdtempSync(join(tmpdir(), "write-section-"));
  const path = join(directory, "RESULTS.md");
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("replaces a section in the middle and keeps the blank line before the next heading", () => {
    writeFileSync(path, "# Results\n\n## A\n\nold a\n\n## B\n\nb\n");
    writeSection(path, "## A", "## A\n\nnew a\n");
    expect(readFileSync(path, "utf8")).toBe("# Results\n\n## A\n\nnew a\n\n## B\n\nb\n");
  });

  it("replaces the last section, and appends one the file does not have", () => {
    writeFileSync(path, "# Results\n\n## A\n\nold a\n");
    writeSection(path, "## A", "## A\n\nnew a");
    writeSection(path, "## C", "## C\n\nc\n");
    expect(readFileSync(path, "utf8")).toBe("# Results\n\n## A\n\nnew a\n\n## C\n\nc\n");
  });

  it("keeps issue 28's and 30's sections when the main table is written again", () => {
    const kept = [transactionsHeading, billTransactionsHeading, schemaValidationHeading].map((heading) => `${heading}\n\nfigures`);
    writeFileSync(path, ["# Results\n\n## Medians\n\nold", ...kept].join("\n\n") + "\n");
    writeResults(path, "# Results\n\n## Medians\n\nnew\n");
    expect(readFileSync(path, "utf8")).toBe(["# Results\n\n## Medians\n\nnew", ...kept].join("\n\n") + "\n");
  });
});
