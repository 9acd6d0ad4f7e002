/** The client's credit rule (docs/api.md, "WebSocket on a partition"): one grant at opening, then credit per half of the largest window processed. */
import { describe, expect, it } from "vitest";
import { streamWindowBytes, streamWindowBytesMax } from "../../../src/limits.ts";
import { CreditLedger } from "../../../src/protocol/stream-credit.ts";

describe("the client's credit rule", () => {
  it("grants the window up to the largest at opening", () => {
    expect(new CreditLedger().opening()).toBe(streamWindowBytesMax - streamWindowBytes);
  });

  it("holds processed bytes until they reach half the largest window, then returns them all at once", () => {
    const ledger = new CreditLedger({ startBytes: 1000, maxBytes: 4000 });
    expect(ledger.processed(900)).toBe(0);
    expect(ledger.processed(900)).toBe(0);
    expect(ledger.held).toBe(1800);
    expect(ledger.processed(300)).toBe(2100);
    expect(ledger.held).toBe(0);
    expect(ledger.processed(5000)).toBe(5000); // a frame larger than the window is returned at once
  });

  it("sends one message per ~2 MiB of frames with the server's windows: ~9,700 records of 216 B", () => {
    const ledger = new CreditLedger();
    let messages = 0;
    for (let frame = 0; frame < 1000; frame++) if (ledger.processed(1000 * 216) > 0) messages++;
    // 1,000 frames of 1,000 records (216,000 B): one message per 10 frames (2,160,000 B ≥ 2 MiB); per frame, 1,000.
    expect(messages).toBe(100);
    const billedPer1000Records = messages / 20 / 1000;
    expect(billedPer1000Records).toBe(0.005);
  });

  it("refuses windows where a caught-up client could leave less than the starting window", () => {
    expect(() => new CreditLedger({ startBytes: 1000, maxBytes: 1500 })).toThrow(RangeError);
    expect(() => new CreditLedger({ startBytes: 1000, maxBytes: 2000 })).not.toThrow();
  });
});
