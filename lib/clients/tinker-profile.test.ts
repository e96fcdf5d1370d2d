import { describe, expect, it } from "vitest";
import { detectServerProfile, needsRootProbe, profileConflict } from "./tinker-profile";

const plain = { embedded: false, hostname: "gpu-7.lab", rootName: null };

describe("the one server-profile detection", () => {
  it("takes an explicit setting as given", () => {
    expect(detectServerProfile("skyrl-train", { ...plain, embedded: true })).toMatchObject({ profile: "skyrl-train", assumed: null, basis: "the node's tinker.server setting" });
  });

  it("infers auto from the evidence, strongest first, and says when it guesses", () => {
    expect(detectServerProfile("auto", { ...plain, embedded: true, rootName: "Tinker API Mock" }).profile).toBe("envace-embedded");
    expect(detectServerProfile("auto", { ...plain, hostname: "tinker.thinkingmachines.dev" }).profile).toBe("tinker");
    const skyrl = detectServerProfile("auto", { ...plain, rootName: "Tinker API Mock" });
    expect(skyrl.profile).toBe("skyrl-jax");
    expect(skyrl.assumed).toMatch(/assuming its default JAX backend/);
    expect(detectServerProfile("auto", plain)).toMatchObject({ profile: "tinker", assumed: null });
  });

  it("asks GET / only when the cheaper evidence does not decide", () => {
    expect(needsRootProbe({ embedded: true, hostname: "x" })).toBe(false);
    expect(needsRootProbe({ embedded: false, hostname: "api.thinkingmachines.ai" })).toBe(false);
    expect(needsRootProbe({ embedded: false, hostname: "10.0.0.4" })).toBe(true);
  });

  it("flags a setting that contradicts the server, but not one the evidence cannot judge", () => {
    expect(profileConflict("tinker", { ...plain, rootName: "Tinker API Mock" })).toMatch(/says tinker \(hosted Tinker\), but GET \/ names SkyRL tx/);
    expect(profileConflict("skyrl-train", { ...plain, rootName: "Tinker API Mock" })).toBeNull();
    expect(profileConflict("skyrl-jax", { ...plain, embedded: true })).toMatch(/embedded node/);
    expect(profileConflict("skyrl-jax", plain)).toBeNull();
    expect(profileConflict("auto", { ...plain, embedded: true })).toBeNull();
  });
});
