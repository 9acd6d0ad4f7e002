import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { batchBytesMax } from "../../../src/limits.ts";
import { CreditLedger, serverCreditWindow } from "../../../src/protocol/stream-credit.ts";
import {
  afterCredit,
  afterFrame,
  creditMayUnblock,
  frameBudget,
  openedAt,
  parseCredit,
  partsThatFit,
  positionGroups,
  readBytesFor,
  stallDeadline,
  withStall,
  type SubscriberPosition,
} from "../../../src/log/subscriber-window.ts";

const bounds = { startBytes: 1000, maxBytes: 4000 };
/** A subscriber at `next` whose leader may still send `room` bytes (the starting window by default). */
const at = (next: number, room = bounds.startBytes, stalledSinceMs: number | null = null): SubscriberPosition => ({ next, mode: "utf8", room, stalledSinceMs });
/** Frame bytes of the first k parts, each part 300 bytes plus a 20-byte envelope. */
const frameOf = (k: number) => 20 + 300 * k;

describe("the credit window", () => {
  it("starts at the starting window", () => {
    expect(openedAt(7, "binary", bounds)).toEqual({ next: 7, mode: "binary", room: 1000, stalledSinceMs: null });
  });

  it("never lets a frame take the room below zero", () => {
    expect(partsThatFit(5, at(0), bounds, frameOf)).toBe(3); // 920 ≤ 1000 < 1220
    expect(partsThatFit(5, at(0, 500), bounds, frameOf)).toBe(1); // 320 ≤ 500
    expect(partsThatFit(5, at(0, 300), bounds, frameOf)).toBe(0); // 320 > 300 left
    expect(partsThatFit(5, at(0, 0), bounds, frameOf)).toBe(0);
    expect(frameBudget(at(0, -200))).toBe(0);
  });

  it("sends a frame larger than the room alone, and only when the room is at least the starting window", () => {
    const huge = (k: number) => 5000 * k;
    expect(partsThatFit(3, at(0), bounds, huge)).toBe(1);
    expect(partsThatFit(3, at(0, 4000), bounds, huge)).toBe(1);
    expect(partsThatFit(3, at(0, 999), bounds, huge)).toBe(0);
    expect(afterFrame(at(0), 5000, 1).room).toBe(-4000); // credit brings it back
  });

  it("sends nothing when there is nothing to send", () => {
    expect(partsThatFit(0, at(0), bounds, frameOf)).toBe(0);
  });

  it("takes sent bytes from the room and adds credit", () => {
    const sent = afterFrame(at(0, 900, 5), 320, 7);
    expect(sent).toEqual({ next: 7, mode: "utf8", room: 580, stalledSinceMs: null });
    expect(afterCredit(sent, 400, bounds).room).toBe(980);
  });

  it("takes credit granted ahead of consumption up to the largest window (a pre-grant)", () => {
    let position = afterCredit(at(0), 3000, bounds);
    expect(position.room).toBe(4000);
    const frames: number[] = [];
    for (let parts = partsThatFit(20, position, bounds, frameOf); parts > 0; parts = partsThatFit(20, position, bounds, frameOf)) {
      frames.push(frameOf(parts));
      position = afterFrame(position, frameOf(parts), 0);
    }
    // Past the starting window with no credit returned, in frames of at most the starting window.
    expect(frames).toEqual([920, 920, 920, 920, 320]);
    expect(position.room).toBe(0);
  });

  it("clamps credit that would take the room past the largest window (no error)", () => {
    expect(afterCredit(at(0), 10_000, bounds).room).toBe(4000);
    expect(afterCredit(at(0, 3900), 200, bounds).room).toBe(4000);
    expect(afterCredit(at(0, -500), Number.MAX_SAFE_INTEGER, bounds).room).toBe(4000);
  });

  it("reads enough for the subscriber with the most room, at least one byte, at most the starting window", () => {
    expect(readBytesFor([at(0, 100), at(0, 800)], bounds)).toBe(800);
    expect(readBytesFor([at(0, 0)], bounds)).toBe(1);
    expect(readBytesFor([at(0, 3000)], bounds)).toBe(1000);
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
    expect(creditMayUnblock(at(5, 0), 10)).toBe(true);
    expect(creditMayUnblock(at(9), 10)).toBe(true);
    expect(creditMayUnblock(at(10, 0), 10)).toBe(false); // caught up: the next commit's push serves it
    expect(creditMayUnblock(at(10), 10)).toBe(false);
  });
});

describe("fan-out", () => {
  it("groups subscribers with room below the high watermark by position, one read per group", () => {
    const subscribers = [
      { id: "a", position: at(5) },
      { id: "b", position: at(5, 600) },
      { id: "c", position: at(2) },
      { id: "d", position: at(10) }, // caught up
      { id: "e", position: at(5, 0) }, // no room
    ];
    expect([...positionGroups(subscribers, 10)]).toEqual([
      [5, ["a", "b"]],
      [2, ["c"]],
    ]);
  });
});

describe("stalls", () => {
  it("start when a push leaves a subscriber behind, keep their start, end when it catches up", () => {
    const stalled = withStall(at(3, 0), 10, 100);
    expect(stalled.stalledSinceMs).toBe(100);
    expect(withStall(stalled, 10, 500).stalledSinceMs).toBe(100);
    expect(stallDeadline(withStall(stalled, 10, 500), 60_000)).toBe(60_100);
    expect(withStall(stalled, 3, 500).stalledSinceMs).toBeNull();
    const idle = at(10);
    expect(withStall(idle, 10, 500)).toBe(idle);
    expect(stallDeadline(idle, 60_000)).toBeUndefined();
  });
});

describe("no stall with the client's credit rule (src/protocol/stream-credit.ts)", () => {
  const MiB = 1024 * 1024;
  const window = serverCreditWindow;
  /** A client that returns each frame's bytes once processed, and grants nothing ahead (older clients). */
  const perFrame = { opening: () => 0, processed: (bytes: number) => bytes, held: 0 };
  /** Frame sizes: small, a batch's (up to batchBytesMax), and JSON frames of one batch far beyond the largest window. */
  const frameSize = fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: batchBytesMax }), fc.integer({ min: 1, max: 9 * MiB }));

  it("delivers frames of any size, the leader's room exactly what the client granted, never clamped", () => {
    fc.assert(
      fc.property(
        fc.array(frameSize, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        (frames, turns, older) => {
          const client = older ? perFrame : new CreditLedger(window);
          let position = afterCredit(openedAt(0, "binary", window), client.opening(), window);
          const unprocessed: number[] = []; // frames sent (in flight or received) the consumer has not taken
          let next = 0;
          for (let turn = 0; next < frames.length || unprocessed.length > 0; turn++) {
            // The leader: every frame its room allows, a frame being one or more batches.
            const bytesOf = (count: number) => frames.slice(next, next + count).reduce((sum, bytes) => sum + bytes, 0);
            const parts = partsThatFit(frames.length - next, position, window, bytesOf);
            if (parts > 0) {
              const bytes = bytesOf(parts);
              const roomBefore = position.room;
              if (parts > 1) expect(bytes).toBeLessThanOrEqual(window.startBytes); // several batches: within one fetch answer
              position = afterFrame(position, bytes, next + parts);
              next += parts;
              unprocessed.push(bytes);
              const outstanding = unprocessed.reduce((sum, frame) => sum + frame, 0);
              // Sent and not processed: at most the largest window, or 3 MiB and one frame larger than the room.
              if (bytes > roomBefore) expect(outstanding).toBeLessThanOrEqual(window.maxBytes - window.startBytes + bytes);
              else expect(outstanding).toBeLessThanOrEqual(window.maxBytes);
              continue;
            }
            // The leader cannot send: the client must have something to process, or this is a stall.
            expect(unprocessed.length, `stalled before a frame of ${frames[next]} bytes with room ${position.room}`).toBeGreaterThan(0);
            for (let taken = 0; taken < turns[turn % turns.length]! && unprocessed.length > 0; taken++) {
              const credit = client.processed(unprocessed.shift()!);
              if (credit === 0) continue;
              expect(position.room + credit).toBeLessThanOrEqual(window.maxBytes); // the rule never loses credit to the clamp
              position = afterCredit(position, credit, window);
            }
            const outstanding = unprocessed.reduce((sum, frame) => sum + frame, 0);
            expect(position.room).toBe(window.startBytes + client.opening() - client.held - outstanding);
          }
          expect(next).toBe(frames.length);
        },
      ),
    );
  });

  it("leaves a caught-up client at least the starting window (a frame of any size goes)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9 * MiB }), { maxLength: 40 }), (frames) => {
        const client = new CreditLedger(window);
        let position = afterCredit(openedAt(0, "binary", window), client.opening(), window);
        for (const bytes of frames) {
          position = afterFrame(position, bytes, 0);
          position = afterCredit(position, client.processed(bytes), window);
          expect(position.room).toBeGreaterThan(window.maxBytes / 2);
          expect(partsThatFit(1, position, window, () => 64 * MiB)).toBe(1);
        }
      }),
    );
  });
});
