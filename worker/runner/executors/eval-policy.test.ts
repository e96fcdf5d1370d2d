import { describe, expect, it } from "vitest";
import { TinkerError } from "../../../lib/clients/tinker-client";
import { nodeFailureCause } from "../node-restarts";
import { checkpointMissing } from "./eval-policy";

const http = (status: number, path: string, detail: string, code?: string) => new TinkerError(`node "n": POST /api/v1/${path}: HTTP ${status} ${detail}`, status, "user", false, code);

describe("a checkpoint its node no longer has", () => {
  it("is a 404 for the sampler path: create_sampling_session (the embedded node) or asample (SkyRL tx)", () => {
    expect(checkpointMissing(http(404, "create_sampling_session", "no weights at tinker://m/sampler_weights/s2", "unknown_model"))).toBe(true);
    expect(checkpointMissing(http(404, "asample", "Checkpoint not found: m/s2"))).toBe(true);
  });

  it("is not a restarted node's forgotten session or sampler (those are retried), nor another failure", () => {
    const forgotten = http(404, "asample", "unknown or expired sampling_session_id 'x'", "unknown_sampler");
    expect(checkpointMissing(forgotten)).toBe(false);
    expect(nodeFailureCause(forgotten)).toMatch(/restarted/);
    expect(checkpointMissing(http(425, "asample", "Checkpoint is still being created"))).toBe(false);
    expect(checkpointMissing(http(400, "asample", "max_tokens is currently required"))).toBe(false);
    expect(checkpointMissing(new Error("fetch failed"))).toBe(false);
  });
});
