import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { evaluateLossCase, parseLossCases } from "./loss-eval";

const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "test/fixtures/loss-eval");
const cases = JSON.parse(readFileSync(path.join(fixtures, "cases.json"), "utf8")) as Array<Record<string, unknown>>;
// Produced by test/fixtures/loss-eval/verl_reference.py (numpy transcription of verl's formulas).
const expected = readFileSync(path.join(fixtures, "expected.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as { id: string; pg_loss: number; kl_loss: number; entropy_loss: number; loss: number });

const close = (got: number | null, want: number) => Math.abs((got ?? NaN) - want) <= 1e-5 * Math.abs(want) + 1e-12;

describe("loss:eval", () => {
  it("agrees with verl's formulas to 1e-5 relative on every case", () => {
    const results = parseLossCases(cases).map(evaluateLossCase);
    expect(results).toHaveLength(expected.length);
    results.forEach((r, i) => {
      const e = expected[i];
      expect(r.id).toBe(e.id);
      for (const k of ["pg_loss", "kl_loss", "entropy_loss", "loss"] as const) {
        if (!close(r[k], e[k])) throw new Error(`${e.id}.${k}: got ${r[k]}, verl gives ${e[k]}`);
      }
    });
  });

  it("the hand cases differ where the settings differ (each setting has an effect)", () => {
    const byId = new Map(parseLossCases(cases).map((c) => [c.id, evaluateLossCase(c)]));
    const base = byId.get("hand-token-mean-low_var_kl")!;
    expect(byId.get("hand-no-dual-clip")!.pg_loss).not.toBeCloseTo(base.pg_loss, 6);
    expect(byId.get("hand-kl-off")!.loss).toBeCloseTo(base.pg_loss - 0.01 * base.entropy_loss!, 12);
    expect(byId.get("hand-entropy-off")!.loss).toBeCloseTo(base.pg_loss + 0.1 * base.kl_loss!, 12);
    const aggs = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"].map((a) => byId.get(`hand-${a}-k1`)!.pg_loss);
    expect(new Set(aggs.map((v) => v.toFixed(8))).size).toBe(3);
  });

  it("names the case and the field on bad input", () => {
    const good = cases[0];
    expect(() => parseLossCases({})).toThrow(/JSON array/);
    expect(() => parseLossCases([good, { ...good, id: "bad", clip_c: 1 }])).toThrow(/case 1 \(id "bad"\): clip_c: clip_c must be greater than 1/);
    expect(() => parseLossCases([{ ...good, id: "m", mask: [[1, 2, 0, 0], [1, 1]] }])).toThrow(/case 0 \(id "m"\): mask\.0\.1: mask values must be 0 or 1/);
    expect(() => parseLossCases([{ ...good, id: "s", advantages: [[1, 1, 1, 1], [1]] }])).toThrow(/case 0 \(id "s"\): advantages\[1\] has 1 values, logprobs\[1\] has 2/);
    expect(() => parseLossCases([{ ...good, id: "k", kl_type: "k4" }])).toThrow(/case 0 \(id "k"\): kl_type/);
    expect(() => parseLossCases([{ ...good, id: "x", extra: 1 }])).toThrow(/case 0 \(id "x"\): \(case\): Unrecognized key/);
    expect(() => parseLossCases([{ ...good, id: "r", ref_logprobs: null }])).toThrow(/case 0 \(id "r"\): ref_logprobs: required when use_kl/);
  });

  it("the command prints one JSON line per case and fails with a message on bad input", async () => {
    const run = promisify(execFile);
    const tsx = path.join(root, "node_modules/.bin/tsx");
    const script = path.join(root, "scripts/loss-eval.ts");
    const { stdout } = await run(tsx, [script, "--cases", path.join(fixtures, "cases.json")], { cwd: root });
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(expected.length);
    expect(Object.keys(lines[0])).toEqual(["id", "pg_loss", "kl_loss", "entropy_loss", "loss"]);
    expect(close(lines[5].loss, expected[5].loss)).toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), "loss-eval-"));
    writeFileSync(path.join(dir, "bad.json"), JSON.stringify([{ ...cases[0], loss_agg: "sum" }]));
    const bad = await run(tsx, [script, "--cases", path.join(dir, "bad.json")], { cwd: root }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/case 0 \(id "hand-token-mean-k1"\): loss_agg/);
  }, 60_000);
});
