/** Simulator (rehearse) prompts carry the reference's left-truncation budget; act prompts do not (envace-method.md §1.6). */
import { describe, expect, it } from "vitest";
import { createShopOraclePolicy } from "../../test/doubles/shop-oracle";
import { shopTasks } from "../envs/shop/tasks";
import type { GenerateRequest, PolicyClient } from "./io";
import { leftTruncate } from "./prompt-budget";
import { ChecklistJudge, judgeTurn } from "./reward";
import { expandJobs, runOneRollout, type JudgeTurnHook, type RolloutDriverConfig } from "./rollout";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const judge = new ChecklistJudge(undefined, { concurrency: 4, timeoutMs: 1000, retries: 1, temperature: 0, topP: 1, maxTokens: 10 });
const programmaticJudge: JudgeTurnHook = ({ job, state }) =>
  judgeTurn({ instance: job.instance, messages: state.messages, turnStartIndex: state.turnStartIndex, userTurnIndex: state.userTurnIndex, lastToolFailed: state.lastToolFailed, maxChecklists: 1 }, judge);

describe("the rehearse prompt budget", () => {
  it("keeps the last tokens of an over-long prompt, and leaves a short one alone", () => {
    expect(leftTruncate([1, 2, 3, 4, 5], 3)).toEqual([3, 4, 5]);
    expect(leftTruncate([1, 2, 3], 3)).toEqual([1, 2, 3]);
    expect(leftTruncate([1, 2, 3], undefined)).toEqual([1, 2, 3]);
  });

  it.each([
    ["rehearse", false],
    ["rehearse with a fidelity probe", true],
  ])("%s: every rehearse generation asks for the run's prompt budget (12,000 by default), act generations for none", async (_, probe) => {
    const oracle = createShopOraclePolicy();
    const requests: GenerateRequest[] = [];
    const policy: PolicyClient = { generate: (req) => (requests.push(req), oracle.generate(req)) };
    const config: RolloutDriverConfig = {
      options: { paradigm: probe ? "environment" : "rehearse", shadowExecution: !probe, fidelityProbe: probe, maxAssistantTurns: 30, maxUserTurns: 30, maxMicroSteps: 200, promptBudgetTokens: 12_000 },
      sampling: { act: sampling, rehearse: sampling },
      maxConcurrentRollouts: 1,
      maxChecklists: 1,
      sleep: async () => {},
    };
    const instance = shopTasks("train").find((t) => t.template === "cart_checkout")!;
    await runOneRollout(expandJobs([instance], 1, "g")[0], { policy }, config, programmaticJudge);
    const rehearse = requests.filter((r) => r.role === "rehearse");
    expect(rehearse.length).toBeGreaterThan(0);
    expect(rehearse.every((r) => r.maxPromptTokens === 12_000)).toBe(true);
    expect(requests.filter((r) => r.role === "act").every((r) => r.maxPromptTokens === undefined)).toBe(true);
  });
});
