import { describe, expect, it } from "vitest";
import { packSummary, runPackBench } from "./pack";
import { ForwardBackwardWriter, decodeForwardBackwardRequest } from "../lib/clients/tinker-proto";
import { PAPER_SCALE } from "./pack-data";

describe("pack bench harness", () => {
  it("builds a step with the engine's machine and the product's renderer path, and its figures", async () => {
    // A small step (2 × 2 rollouts, 400-token replies, 6,000-token budget) with every prompt also rendered
    // from scratch and compared (verify: throws on the first difference, left-truncation included).
    const scale = { instances: 2, rollouts: 2, maxTurns: 30, replyTokens: 400, promptBudgetTokens: 6_000 };
    const r = await runPackBench(scale, { verify: true });
    const { step } = r;
    // Every rollout runs the act/rehearse loop until the act context budget ends it (LENGTH_EXCEEDED).
    expect(step.terminations).toEqual({ LENGTH_EXCEEDED: 4 });
    expect(step.generations.act).toBe(step.generations.rehearse);
    expect(step.turnsPerRollout.mean).toBeGreaterThan(2);
    // Act prompts extend the rollout's previous one (the per-rollout cache's case).
    expect(step.actPrefixExtensions.of).toBeGreaterThan(0);
    expect(step.actPrefixExtensions.extended).toBe(step.actPrefixExtensions.of);
    // (The machine's budget check counts appended contents, not the template's few tokens per message: an
    // act prompt can pass the budget by those.)
    expect(step.maxPromptTokens).toBeLessThanOrEqual(6_000 + 100);
    expect(r.datums).toBe(step.generations.act + step.generations.rehearse);
    expect(Math.max(...r.bodies)).toBeLessThanOrEqual(r.bodyLimitBytes);

    // Each body as posted (the direct writer) is byte for byte what protobufjs writes for the same request.
    expect(r.bodyBytes?.length).toBe(r.bodies.length);
    for (const body of r.bodyBytes!) {
      const { data, ...header } = decodeForwardBackwardRequest(body);
      const reference = new ForwardBackwardWriter(header);
      reference.add(data);
      expect(Buffer.from(reference.finish()).equals(Buffer.from(body))).toBe(true);
    }

    const json = packSummary(r);
    for (const key of ["render_cpu_s", "pack_cpu_s", "max_stall_ms", "max_body_mb", "turns_per_rollout", "reply_tokens"] as const) expect(typeof json[key]).toBe("number");
    expect(json).toMatchObject({ bench: "pack", reply_tokens: 400, instances: 2, rollouts: 2, body_limit_mb: 5 });
    expect(json.render_cpu_s).toBeGreaterThan(0);
    expect(json.pack_cpu_s).toBeGreaterThan(0);
  }, 60_000);

  it("defaults to the paper's step", () => {
    expect(PAPER_SCALE).toEqual({ instances: 16, rollouts: 4, maxTurns: 30, replyTokens: 2000, promptBudgetTokens: 12_000 });
  });
});
