/**
 * Which input lines of `tributary produce` the server acknowledged, so that a run that stopped
 * (a bad line, a refused request, Ctrl-C) can say where to resume. Lines are sent in input
 * order, a range of them per send; sends settle in any order (partitions are written in
 * parallel). The ledger counts the records acknowledged and the longest run of lines from
 * line 1 that are all acknowledged: a rerun from the line after it writes nothing twice but
 * for the later lines that were acknowledged too (`acknowledged - prefixLines` of them).
 */
type Outcome = "pending" | "acknowledged" | "failed";

export class AcknowledgedLines {
  /** Records acknowledged, wherever they are in the input. */
  acknowledged = 0;
  /** Lines 1 to prefixLines are all acknowledged. */
  prefixLines = 0;
  /**
   * The sends after the prefix, in input order, until the first of them fails (then the prefix
   * can grow no more and nothing is kept). At most the sends in flight, which the caller bounds.
   */
  #after: { lines: number; outcome: Outcome }[] = [];
  #prefixEnded = false;

  /** Registers a send of the next `lines` lines; call the answer once it settles. */
  sent(lines: number): (acknowledged: boolean) => void {
    const entry = { lines, outcome: "pending" as Outcome };
    if (!this.#prefixEnded) this.#after.push(entry);
    return (acknowledged) => {
      if (entry.outcome !== "pending") throw new Error("a send settles once");
      entry.outcome = acknowledged ? "acknowledged" : "failed";
      if (acknowledged) this.acknowledged += lines;
      this.#advance();
    };
  }

  #advance(): void {
    while (this.#after.length > 0 && this.#after[0]!.outcome === "acknowledged") this.prefixLines += this.#after.shift()!.lines;
    if (this.#after[0]?.outcome === "failed") {
      this.#prefixEnded = true;
      this.#after = [];
    }
  }
}
