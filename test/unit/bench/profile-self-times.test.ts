/**
 * bench/profile.ts's self times: each sample stands for the time until the next one, and a
 * gap the sampler missed (another isolate on the thread, the sampler not scheduled) is its own
 * line rather than the sampled function's.
 */
import { describe, expect, it } from "vitest";
import { selfTimes, unsampledLabel, type Profile } from "../../../bench/profile.ts";

const frame = (functionName: string, lineNumber: number) => ({ functionName, scriptId: "1", lineNumber });
const source = ["function a() {", "function b() {"];
const inspector = { call: async <T>() => ({ scriptSource: source.join("\n") }) as T };

describe("selfTimes", () => {
  it("charges each sample the time to the next, and reports long gaps as unsampled", async () => {
    const profile: Profile = {
      nodes: [{ id: 1, callFrame: frame("a", 0) }, { id: 2, callFrame: frame("b", 1) }],
      // a, then b 200 µs later, then a 50 ms later (a gap), then b 200 µs later.
      samples: [1, 2, 1, 2],
      timeDeltas: [0, 200, 50_000, 200],
    };
    const times = await selfTimes(inspector, profile, 200);
    const byLabel = Object.fromEntries(times.map((time) => [time.label.split(" ")[0], time.ms]));
    expect(byLabel).toEqual({ a: 0.4, b: 0, [unsampledLabel.split(" ")[0]!]: 50 });
    expect(times[0]!.label).toBe(unsampledLabel);
  });
});
