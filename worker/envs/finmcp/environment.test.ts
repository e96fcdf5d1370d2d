/**
 * finmcp:<file> through the engine's evaluation (runEvaluation) on the synthetic samples, in replay mode: the sample loop
 * as upstream's inference runs it (gold history per turn, the whole schema set, the bound of 20 calls), the replay's
 * answers, error records, and upstream's scorer over messages_pred.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../contracts/run-config";
import { finmcpFiles, loadFinmcpSamples } from "../../../lib/finmcp/data";
import { dataDir } from "../../../lib/tau2/tasks";
import { finmcpGoldPolicy } from "../../../test/doubles/finmcp-oracle";
import { runEvaluation } from "../../engine/step";
import { environmentKindOf } from "../index";
import { finmcpDetailOf, finmcpEnvironment, finmcpEvalMetrics } from "./environment";
import { runScore } from "./cli/score";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const shared = existsSync(join(dataDir(), "finmcp-synthetic/samples.json"));

function config(over: Partial<RunConfigInput> = {}) {
  const parsed = parseRunConfig({
    kind: "eval",
    policy: { node: "p", model: "m" },
    data: { dataset: "finmcp:samples" },
    finmcp: { environment: "replay", folder: "finmcp-synthetic" },
    rollout: { paradigm: "environment", maxAssistantTurns: 100, maxMicroSteps: 1000, promptBudgetTokens: 1_000_000 },
    ...over,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

const open = (c = config()) => finmcpEnvironment({ config: c, prisma: undefined as never, note: () => {}, signal: new AbortController().signal });
const samples = () => loadFinmcpSamples(finmcpFiles("samples", { folder: "finmcp-synthetic" }).samples);

describe.skipIf(!shared)("finmcp environment (replay) on the synthetic samples", () => {
  it("is the registry's kind for finmcp:<file>, refuses a run without an environment, and names the sample position as the task id", async () => {
    expect(environmentKindOf("finmcp:samples").prefix).toBe("finmcp:");
    const bad = parseRunConfig({ kind: "eval", data: { dataset: "finmcp:samples" } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors).toContainEqual({ path: "finmcp.environment", message: expect.stringMatching(/mcp:<server>.*replay/) });
    const train = parseRunConfig({ kind: "train", data: { dataset: "finmcp:samples" }, finmcp: { environment: "replay" } });
    expect(train.ok).toBe(false);
    const e = await open();
    expect(e.evalSet().map((i) => i.id)).toEqual(["0", "1", "2", "3", "4", "5"]);
    // A replay's numbers are labelled wherever they appear, the generic result table's column included.
    expect(e.evalSet()[0]!.dataSource).toBe("finmcp:samples (replay)");
    // The whole schema set with every request.
    expect(e.evalSet()[0]!.tools.map((t) => t.function.name)).toHaveLength(9);
  });

  it("a policy writing the gold trajectory back scores 1 everywhere: gold history per turn, recorded outputs, upstream's scorer", async () => {
    const c = config();
    const e = await open(c);
    const policy = finmcpGoldPolicy(samples());
    const result = await runEvaluation({ instances: e.evalSet(), config: c, policy, stepIndex: 1 });
    const m = e.evaluationMetrics!(result);
    expect(m["val/finmcp/N"]).toBe(6);
    expect(m["val/finmcp/macro_F1"]).toBe(1);
    expect(m["val/finmcp/micro_Recall"]).toBe(1);
    expect(m["val/finmcp/consist_mean"]).toBe(1);
    expect(m["val/finmcp/replay"]).toBe(1);
    expect(m["val/finmcp/unrecorded_calls"]).toBe(0);
    expect(result.trajectories.every((t) => t.success && t.reward === 1)).toBe(true);
    // A multi-turn sample: each turn saw the gold history (never the model's own earlier turns).
    const laterTurns = policy.requests.filter((r) => r.messages.some((m) => m.tool_call_id === "call_syn06a"));
    expect(laterTurns.length).toBeGreaterThan(0);
    for (const r of laterTurns) {
      const lastUser = r.messages.map((m) => m.role).lastIndexOf("user");
      // Before the turn's user message: gold calls only (ids call_syn…), with their recorded outputs.
      const before = r.messages.slice(0, lastUser).flatMap((m) => m.tool_calls ?? []);
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((x) => x.id.startsWith("call_syn"))).toBe(true);
    }
    const d = finmcpDetailOf(result.trajectories[5]!)!;
    expect(d.gold).toEqual(["FindFunds", "GetNavHistory", "RenderPdf"]);
    expect(d.pred).toEqual(d.gold);
    // The recorded output came back as the tool message of the call.
    const tool = d.messagesPred.find((x) => (x as { role: string }).role === "tool") as { content: string };
    expect(tool.content).toBe(samples()[5]!.messages.find((x) => x.role === "tool")!.content);
    // messages_pred scored by the command gives the same numbers.
    const dir = mkdtempSync(join(tmpdir(), "finmcp-"));
    writeFileSync(join(dir, "p.json"), JSON.stringify(result.trajectories.map((t) => ({ messages_pred: finmcpDetailOf(t)!.messagesPred }))));
    const cli = JSON.parse(runScore(["--samples", finmcpFiles("samples", { folder: "finmcp-synthetic" }).samples, "--predictions", join(dir, "p.json")]).stdout);
    expect(cli.overall.macro_F1).toBe(1);
    expect(cli.overall.N).toBe(6);
  });

  it("answers a call without a recording with 'no recorded output', makes bad argument JSON an error record, and bounds the calls", async () => {
    const c = config({ data: { dataset: "finmcp:samples", instanceIds: ["0", "1", "2"] } });
    const e = await open(c);
    let loops = 0;
    const policy = finmcpGoldPolicy(samples(), (text, sample, req) => {
      const first = sample.messages.find((m) => m.role === "user")!.content ?? "";
      if (first.includes("bond market")) return text.replace('"page": 1', '"page": 2');
      if (first.includes("dividend")) return text.includes("<tool_call>") ? text.replace('{"keyword"', "{keyword") : text;
      // Sample 2: call forever; the 21st executed call is the last, the 22nd reply's call stays unrun but counts.
      loops++;
      void req;
      return '\n<tool_call>\n{"name": "GetAccountOverview", "arguments": {"userId": "syn-user-03"}}\n</tool_call>';
    });
    const result = await runEvaluation({ instances: e.evalSet(), config: c, policy, stepIndex: 1 });
    const [a, b, d] = result.trajectories.map(finmcpDetailOf);
    expect((a!.messagesPred.find((x) => (x as { role: string }).role === "tool") as { content: string }).content).toMatch(/^no recorded output: the gold trajectory of this sample has no SearchNews call/);
    expect(a!.TP).toBe(1);
    expect(b!.notScored).toMatch(/^error record: turn 1: the reply's tool call could not be read \(JSON_DECODE_ERROR/);
    expect(result.trajectories[1]!.outcome).toBe("error");
    expect(d!.pred).toHaveLength(22);
    expect(d!.turns[0]!.termination).toBe("max_tool_calls");
    expect(loops).toBe(22);
    const m = finmcpEvalMetrics(result.trajectories, { kind: "replay" });
    expect(m["val/finmcp/N"]).toBe(2);
    expect(m["val/finmcp/errored"]).toBe(1);
    expect(m["val/finmcp/unrecorded_calls"]).toBe(1);
  });
});
