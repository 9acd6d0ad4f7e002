import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { GroupCommit, type Settled } from "../../../src/log/group-commit.ts";

/** A host whose flushes finish only when the test says so, recording every group written. */
function controlledHost(refuse: (item: string) => boolean = () => false) {
  const groups: string[][] = [];
  const flushes: (() => void)[] = [];
  const host = {
    write(items: readonly string[]): Settled<string>[] {
      groups.push([...items]);
      return items.map((item) => (refuse(item) ? { ok: false, error: new Error(`refused ${item}`) } : { ok: true, value: `wrote ${item}` }));
    },
    flush: () => new Promise<void>((resolve) => flushes.push(resolve)),
  };
  const finishFlush = async () => {
    flushes.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { host, groups, finishFlush };
}

describe("GroupCommit", () => {
  it("writes an append alone at once when no write is in progress", async () => {
    const { host, groups, finishFlush } = controlledHost();
    const queue = new GroupCommit({ itemsMax: 10, bytesMax: 1000 }, host);
    const answer = queue.submit("a", 1);
    expect(groups).toEqual([["a"]]);
    await finishFlush();
    await expect(answer).resolves.toBe("wrote a");
  });

  it("writes the appends that arrive during a write together, in arrival order, once it is durable", async () => {
    const { host, groups, finishFlush } = controlledHost();
    const queue = new GroupCommit({ itemsMax: 10, bytesMax: 1000 }, host);
    const answers = ["a", "b", "c", "d"].map((item) => queue.submit(item, 1));
    expect(groups).toEqual([["a"]]);
    expect(queue.stats()).toMatchObject({ waitingItems: 3, waitingBytes: 3 });
    await finishFlush();
    expect(groups).toEqual([["a"], ["b", "c", "d"]]);
    await finishFlush();
    expect(await Promise.all(answers)).toEqual(["wrote a", "wrote b", "wrote c", "wrote d"]);
    expect(queue.stats()).toEqual({ waitingItems: 0, waitingBytes: 0, groups: 2, items: 4 });
  });

  it("answers nothing before its own write is durable", async () => {
    const { host, finishFlush } = controlledHost();
    const queue = new GroupCommit({ itemsMax: 10, bytesMax: 1000 }, host);
    let answered = false;
    void queue.submit("a", 1).then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answered).toBe(false);
    await finishFlush();
    expect(answered).toBe(true);
  });

  it("refuses one append of a group without failing the others", async () => {
    const { host, finishFlush } = controlledHost((item) => item === "b");
    const queue = new GroupCommit({ itemsMax: 10, bytesMax: 1000 }, host);
    const answers = ["a", "b", "c"].map((item) => queue.submit(item, 1).catch((error: Error) => error.message));
    await finishFlush();
    await finishFlush();
    expect(await Promise.all(answers)).toEqual(["wrote a", "refused b", "wrote c"]);
  });

  it("fails every append of a group whose flush fails", async () => {
    const groups: string[][] = [];
    const queue = new GroupCommit<string, string>(
      { itemsMax: 10, bytesMax: 1000 },
      { write: (items) => (groups.push([...items]), items.map((item) => ({ ok: true, value: item }))), flush: () => Promise.reject(new Error("disk gone")) },
    );
    await expect(queue.submit("a", 1)).rejects.toThrow("disk gone");
  });

  it.each([
    ["count", { itemsMax: 2, bytesMax: 1000 }, [1, 1, 1]],
    ["bytes", { itemsMax: 10, bytesMax: 100 }, [60, 60, 1]],
  ])("refuses past its %s bound with a retriable BROKER_BUSY, writing nothing of the refused append", async (_bound, bounds, sizes) => {
    const { host, groups, finishFlush } = controlledHost();
    const queue = new GroupCommit(bounds, host);
    void queue.submit("first", 1);
    const waiting = sizes.map((bytes, index) => queue.submit(`w${index}`, bytes).catch((error: unknown) => error));
    await finishFlush();
    await finishFlush();
    const outcomes = await Promise.all(waiting);
    const refused = outcomes.filter((outcome) => outcome instanceof TributaryError);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) expect([(error as TributaryError).code, (error as TributaryError).retriable]).toEqual(["BROKER_BUSY", true]);
    const written = groups.flat();
    outcomes.forEach((outcome, index) => expect(written.includes(`w${index}`)).toBe(!(outcome instanceof TributaryError)));
  });
});
