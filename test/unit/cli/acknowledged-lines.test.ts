import { describe, expect, it } from "vitest";
import { AcknowledgedLines } from "../../../src/cli/acknowledged-lines.ts";
import { stoppedSummary } from "../../../src/cli/produce.ts";

describe("AcknowledgedLines", () => {
  it("grows the prefix only through sends acknowledged in input order, whatever order they settle in", () => {
    const ledger = new AcknowledgedLines();
    const [first, second, third] = [ledger.sent(10), ledger.sent(5), ledger.sent(7)];
    third!(true);
    expect(ledger).toMatchObject({ acknowledged: 7, prefixLines: 0 });
    first!(true);
    expect(ledger).toMatchObject({ acknowledged: 17, prefixLines: 10 });
    second!(true);
    expect(ledger).toMatchObject({ acknowledged: 22, prefixLines: 22 });
  });

  it("stops the prefix at the first failed send; later acknowledgements still count", () => {
    const ledger = new AcknowledgedLines();
    const [first, second, third] = [ledger.sent(3), ledger.sent(4), ledger.sent(5)];
    first!(true);
    second!(false);
    third!(true);
    const fourth = ledger.sent(2);
    fourth(true);
    expect(ledger).toMatchObject({ acknowledged: 10, prefixLines: 3 });
    expect(() => fourth(true)).toThrow("a send settles once");
  });
});

describe("stoppedSummary", () => {
  const ledgerOf = (outcomes: [lines: number, acknowledged: boolean][]) => {
    const ledger = new AcknowledgedLines();
    for (const settle of outcomes.map(([lines, acknowledged]) => [ledger.sent(lines), acknowledged] as const)) settle[0](settle[1]);
    return ledger;
  };

  it("says how many records, which lines and where to resume, with plurals right", () => {
    expect(stoppedSummary(ledgerOf([[50_000, true]]), "failure")).toBe("50,000 records were acknowledged before the failure: lines 1 to 50000; resume from line 50001\n");
    expect(stoppedSummary(ledgerOf([[1, true]]), "interruption")).toBe("1 record was acknowledged before the interruption: line 1; resume from line 2\n");
    expect(stoppedSummary(ledgerOf([]), "failure")).toBe("0 records were acknowledged before the failure; resume from line 1\n");
    expect(stoppedSummary(ledgerOf([[9, true], [3, false], [1, true]]), "failure")).toBe(
      "10 records were acknowledged before the failure: lines 1 to 9 and 1 later line; resume from line 10 (the later ones would be written again)\n",
    );
    expect(stoppedSummary(ledgerOf([[3, false], [4, true]]), "failure")).toBe(
      "4 records were acknowledged before the failure: not line 1 and 4 later lines; resume from line 1 (the later ones would be written again)\n",
    );
  });
});
