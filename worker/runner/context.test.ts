import { describe, expect, it } from "vitest";
import { throttledProgress } from "./context";

describe("throttledProgress", () => {
  it("reports about `updates` times per pass and always the final count", async () => {
    const calls: [number, number][] = [];
    const report = throttledProgress({ progress: async (s, t) => void calls.push([s, t]) }, 4);
    for (let i = 1; i <= 10; i++) report(i, 10);
    expect(calls).toEqual([[2, 10], [4, 10], [6, 10], [8, 10], [10, 10]]);
  });

  it("reports every rollout when there are fewer rollouts than updates", () => {
    const calls: number[] = [];
    const report = throttledProgress({ progress: async (s) => void calls.push(s) }, 20);
    for (let i = 1; i <= 3; i++) report(i, 3);
    expect(calls).toEqual([1, 2, 3]);
  });
});
