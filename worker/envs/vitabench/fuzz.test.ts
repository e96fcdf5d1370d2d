import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultProcess, extract, partialRatio, partialRatioRaw, pyRoundHalfEven, ratio } from "./fuzz";

// Goldens from the real rapidfuzz 3.14.6 (scripts/vitabench/fuzz_goldens.py).
const golden = JSON.parse(readFileSync(new URL("../../../test/fixtures/vitabench/fuzz.json", import.meta.url), "utf8")) as {
  pairs: { a: string; b: string; partial_ratio: number; ratio: number; processed_a: string }[];
  extract: { query: string; choices: string[]; ranked: [number, number][] }[];
};

describe("rapidfuzz partial_ratio / ratio / default_process", () => {
  it("reproduces every golden pair bit for bit", () => {
    for (const p of golden.pairs) {
      expect(partialRatioRaw(p.a, p.b), JSON.stringify(p)).toBe(p.partial_ratio);
      expect(partialRatio(p.a, p.b)).toBe(pyRoundHalfEven(p.partial_ratio));
      expect(ratio(p.a, p.b)).toBe(pyRoundHalfEven(p.ratio));
      expect(defaultProcess(p.a)).toBe(p.processed_a);
    }
  });
  it("ranks as thefuzz process.extract (unrounded score, ties in choice order)", () => {
    for (const e of golden.extract) {
      const got = extract(e.query, e.choices.map((choice, key) => ({ key, choice })));
      expect(got.map((g) => [g.key, g.score]), e.query).toEqual(e.ranked);
    }
  });
  it("rounds half to even like Python", () => {
    expect([0.5, 1.5, 2.5, 66.5, 66.50000000000001].map(pyRoundHalfEven)).toEqual([0, 2, 2, 66, 67]);
  });
});
