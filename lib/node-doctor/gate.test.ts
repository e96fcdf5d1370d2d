import { describe, expect, it } from "vitest";
import { refusalFor } from "./gate";
import { type DoctorCheck, type DoctorReport, reportOk, summariseReport } from "./report";

const ok = (check: DoctorCheck["check"], neededBy: DoctorCheck["neededBy"], protocol: DoctorCheck["protocol"] = "openai"): DoctorCheck => ({ check, protocol, status: "ok", reason: "fine", neededBy });
const report = (checks: DoctorCheck[], facts: Partial<DoctorReport["facts"]> = {}, kind: DoctorReport["kind"] = "openai"): DoctorReport => ({
  doctor: "node",
  node: "gpu-1",
  kind,
  url: "http://gpu-1:8000",
  model: "Qwen/Qwen3-8B",
  ok: reportOk(checks),
  checkedAt: "2026-11-30T12:34:56.000Z",
  durationMs: 1200,
  checks,
  facts: { servedModels: ["Qwen/Qwen3-8B"], ...facts },
});
const all = ["policy", "tool simulator", "user simulator", "judge"] as const;

describe("the launch verdict from a doctor report", () => {
  const toolsBroken = report([
    ok("models", [...all]),
    ok("chat", [...all]),
    { check: "tool-calling", protocol: "openai", status: "failed", reason: "the server returned the call as text", neededBy: ["policy"] },
    { check: "reasoning", protocol: "openai", status: "failed", reason: "think tags in the answer", neededBy: [] },
  ]);

  it("refuses only the roles that need the failed check, naming node, role, model, check, time and reason", () => {
    expect(refusalFor({ role: "judge", node: "gpu-1", model: "Qwen/Qwen3-8B" }, toolsBroken)).toBeNull();
    expect(refusalFor({ role: "policy", node: "gpu-1", model: "Qwen/Qwen3-8B" }, toolsBroken)).toBe(
      'node "gpu-1" (policy, model "Qwen/Qwen3-8B") failed the node doctor\'s tool-calling check (checked 2026-11-30 12:34 UTC): the server returned the call as text. Fix the node or its settings, then run the doctor again on the Nodes page.',
    );
    expect(toolsBroken.ok).toBe(false);
  });

  it("a wrong loss scale refuses a training run on the node, not an evaluation (it computes no loss)", () => {
    const wrongLoss = report(
      [ok("sampling", ["policy"], "tinker"), { check: "loss-scale", protocol: "tinker", status: "failed", reason: "reported -2.75 where the token sum is -5.5", neededBy: ["policy"] }],
      {},
      "tinker",
    );
    const policy = { role: "policy", node: "gpu-1", model: "Qwen/Qwen3-8B" } as const;
    expect(refusalFor(policy, wrongLoss)).toMatch(/failed the node doctor's loss-scale check .*: reported -2\.75/);
    expect(refusalFor(policy, wrongLoss, { training: true })).toMatch(/loss-scale/);
    expect(refusalFor(policy, wrongLoss, { training: false })).toBeNull();
    // Any other failed check still refuses an evaluation.
    const noSampling = report([{ ...ok("sampling", ["policy"], "tinker"), status: "failed", reason: "no logprobs" }], {}, "tinker");
    expect(refusalFor(policy, noSampling, { training: false })).toMatch(/sampling check/);
  });

  it("a check that could not run blocks the roles that need it", () => {
    const r = report([{ check: "models", protocol: "openai", status: "failed", reason: "connect ECONNREFUSED", neededBy: [...all] }, { check: "chat", protocol: "openai", status: "skipped", reason: "needs /v1/models", neededBy: [...all] }]);
    expect(refusalFor({ role: "user simulator", node: "gpu-1", model: "m" }, r)).toMatch(/failed the node doctor's models check .*: connect ECONNREFUSED/);
    expect(summariseReport(r)).toBe("doctor (Qwen/Qwen3-8B): models failed: connect ECONNREFUSED (+1 more)");
  });

  it("checks the run's LoRA rank against the limit the doctor found, except on the embedded node", () => {
    const tinker = report([ok("server", ["policy"], "tinker"), ok("lora-rank", ["policy"], "tinker")], { loraRankLimit: 32, profile: "skyrl-jax" }, "tinker");
    const ref = { role: "policy" as const, node: "skyrl", model: "Qwen/Qwen3-8B" };
    expect(refusalFor(ref, tinker, { loraRank: 32 })).toBeNull();
    expect(refusalFor(ref, tinker, { loraRank: 64 })).toMatch(/policy\.loraRank 64 is above the largest LoRA rank the node takes \(32, the doctor's lora-rank check\)/);
    expect(refusalFor(ref, { ...tinker, facts: { ...tinker.facts, loraRankLimit: null } }, { loraRank: 512 })).toBeNull();
    expect(refusalFor(ref, { ...tinker, facts: { ...tinker.facts, profile: "envace-embedded" } }, { loraRank: 64 })).toBeNull();
    expect(summariseReport(tinker)).toBe("doctor: 2 of 2 checks ok (Qwen/Qwen3-8B)");
  });
});
