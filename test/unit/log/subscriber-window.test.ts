import { describe, expect, it } from "vitest";
import {
  afterCredit,
  afterFrame,
  creditMayUnblock,
  frameBudget,
  parseCredit,
  partsThatFit,
  positionGroups,
  readBytesFor,
  stallDeadline,
  withStall,
  type SubscriberPosition,
} from "../../../src/log/subscriber-window.ts";

const windowBytes = 1000;
const at = (next: number, unreturned = 0, stalledSinceMs: number | null = null): SubscriberPosition => ({ next, mode: "utf8", unreturned, stalledSinceMs });
/** Frame bytes of the first k parts, each part 300 bytes plus a 20-byte envelope. */
const frameOf = (k: number) => 20 + 300 * k;

describe("the credit window", () => {
  it("never lets unreturned bytes pass the window", () => {
    expect(partsThatFit(5, at(0), windowBytes, frameOf)).toBe(3); // 920 ≤ 1000 < 1220
    expect(partsThatFit(5, at(0, 500), windowBytes, frameOf)).toBe(1); // 320 ≤ 500
    expect(partsThatFit(5, at(0, 700), windowBytes, frameOf)).toBe(0); // 320 > 300 left
    expect(partsThatFit(5, at(0, 1000), windowBytes, frameOf)).toBe(0);
    expect(frameBudget(at(0, 1200), windowBytes)).toBe(0);
  });

  it("sends a frame larger than the window only when nothing is unreturned", () => {
    const huge = (k: number) => 5000 * k;
    expect(partsThatFit(3, at(0), windowBytes, huge)).toBe(1);
    expect(partsThatFit(3, at(0, 1), windowBytes, huge)).toBe(0);
  });

  it("sends nothing when there is nothing to send", () => {
    expect(partsThatFit(0, at(0), windowBytes, frameOf)).toBe(0);
  });

  it("adds sent bytes, takes returned credit, never below zero", () => {
    const sent = afterFrame(at(0, 100, 5), 320, 7);
    expect(sent).toEqual({ next: 7, mode: "utf8", unreturned: 420, stalledSinceMs: null });
    expect(afterCredit(sent, 400).unreturned).toBe(20);
    expect(afterCredit(sent, 10_000).unreturned).toBe(0);
  });

  it("reads enough for the subscriber with the most room, at least one byte", () => {
    expect(readBytesFor([at(0, 900), at(0, 200)], windowBytes)).toBe(800);
    expect(readBytesFor([at(0, 1000)], windowBytes)).toBe(1);
  });
});

describe("credit messages", () => {
  it("accept exactly {credit: n} with n a non-negative safe integer", () => {
    expect(parseCredit('{"credit": 4096}')).toBe(4096);
    expect(parseCredit('{"credit":0}')).toBe(0);
    for (const bad of ['{"credit": -1}', '{"credit": 1.5}', '{"credit": "5"}', '{"credit": 5, "x": 1}', "{}", "[]", "null", "5", "credit", '{"credit": 1e300}']) {
      expect(parseCredit(bad), bad).toBeUndefined();
    }
    expect(parseCredit(new ArrayBuffer(4))).toBeUndefined();
  });

  it("may unblock only a subscriber that records wait for (behind the high watermark), room or not", () => {
    expect(creditMayUnblock(at(5, 1000), 10)).toBe(true);
    expect(creditMayUnblock(at(9), 10)).toBe(true);
    expect(creditMayUnblock(at(10, 1000), 10)).toBe(false); // caught up: the next commit's push serves it
    expect(creditMayUnblock(at(10), 10)).toBe(false);
  });
});

describe("fan-out", () => {
  it("groups subscribers with room below the high watermark by position, one read per group", () => {
    const subscribers = [
      { id: "a", position: at(5) },
      { id: "b", position: at(5, 400) },
      { id: "c", position: at(2) },
      { id: "d", position: at(10) }, // caught up
      { id: "e", position: at(5, 1000) }, // no room
    ];
    expect([...positionGroups(subscribers, 10, windowBytes)]).toEqual([
      [5, ["a", "b"]],
      [2, ["c"]],
    ]);
  });
});

describe("stalls", () => {
  it("start when a push leaves a subscriber behind, keep their start, end when it catches up", () => {
    const stalled = withStall(at(3, 1000), 10, 100);
    expect(stalled.stalledSinceMs).toBe(100);
    expect(withStall(stalled, 10, 500).stalledSinceMs).toBe(100);
    expect(stallDeadline(withStall(stalled, 10, 500), 60_000)).toBe(60_100);
    expect(withStall(stalled, 3, 500).stalledSinceMs).toBeNull();
    const idle = at(10);
    expect(withStall(idle, 10, 500)).toBe(idle);
    expect(stallDeadline(idle, 60_000)).toBeUndefined();
  });
});
