import { describe, expect, it } from "vitest";
import { parseNodeSettings } from "./node-settings";
import { paperReferencePreset, parseRunConfig, quickstartPreset } from "./run-config";

describe("policy LoRA rank (run config)", () => {
  it("defaults to 32 and refuses ranks below 1", () => {
    const r = parseRunConfig({});
    expect(r.ok && r.config.policy.loraRank).toBe(32);
    const bad = parseRunConfig({ policy: { loraRank: 0 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0].path).toBe("policy.loraRank");
  });

  it("the paper preset trains a rank-32 adapter at the LoRA learning rate", () => {
    const r = parseRunConfig(paperReferencePreset);
    expect(r.ok).toBe(true);
    if (r.ok) expect([r.config.policy.loraRank, r.config.optim.lr]).toEqual([32, 1e-5]);
    const q = parseRunConfig(quickstartPreset);
    expect(q.ok && q.config.policy.loraRank).toBe(32);
  });
});

describe("node settings: tinker section", () => {
  it("defaults and limits", () => {
    expect(parseNodeSettings("n", {}).tinker).toEqual({ server: "auto", futureDeadlineS: 7200, maxLoraRank: null, wire: "protobuf" });
    expect(parseNodeSettings("n", { tinker: { server: "skyrl-jax", maxLoraRank: 16, wire: "json", futureDeadlineS: 60 } }).tinker).toEqual({
      server: "skyrl-jax",
      futureDeadlineS: 60,
      maxLoraRank: 16,
      wire: "json",
    });
    expect(() => parseNodeSettings("gpu-1", { tinker: { futureDeadlineS: 1 } })).toThrow(/node "gpu-1": settings.tinker.futureDeadlineS/);
    expect(() => parseNodeSettings("gpu-1", { tinker: { pollS: 1 } })).toThrow(/node "gpu-1": settings.tinker/);
  });
});
