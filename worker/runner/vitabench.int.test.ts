/**
 * VitaBench evaluations end to end against real Postgres, through the real worker process (worker/main.ts) and read
 * back through the API the UI uses: delivery and in-store (English tasks of the shared data), the policy, the user
 * simulator and the judge all models on one registered OpenAI-compatible node — the vLLM-like TEST DOUBLE
 * (test/doubles/vllm-openai.ts) serving scripted stand-ins (test/doubles/vita-scripts.ts) that tell the three kinds
 * of request apart by their prompts (the tiny embedded model cannot be the user simulator — the launch check refuses
 * it: the persona prompt alone is 4,635 of its tokens — nor a judge, and as the agent it makes no call worth checking). The stored trajectories carry the real tool texts, the fidelity probe's predictions and each
 * rubric's verdict with the judge's justification and window; the runs store upstream's metrics; a report over both
 * runs fills Table 1's VitaBench group (Deliv., Inst.; Cross and OTA "—" with the reason).
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { markDoctorPassed } from "../../test/fixtures/doctor-report";
import { startVllmDouble, type ScriptedModel, type VllmDouble, type VllmRequest } from "../../test/doubles/vllm-openai";
import { isJudgeRequest, isUserSimulatorRequest, vitaJudgeReply, vitaUserLine } from "../../test/doubles/vita-scripts";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { spawnTsx, type Child } from "../../test/processes";
import { dataDir as sharedDataDir } from "../../lib/tau2/tasks";

const databaseUrl = inject("databaseUrl");
const dataDir = sharedDataDir();
const shared = existsSync(`${dataDir}/vitabench/instore/tasks_en.json`);

type Caller = Awaited<ReturnType<typeof callerFor>>;

const text = (m: VllmRequest["messages"][number] | undefined) => (typeof m?.content === "string" ? m.content : "");
const think = (why: string, answer: string) => `<think>\n${why}\n</think>\n\n${answer}`;
const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/**
 * One scripted model behind the node. The agent (requests with tools) makes one real call of its domain, then
 * answers; the user says its need, then stops; the judge finds every rubric met, except rubric_0 of in-store tasks.
 */
function scriptedVitaModel(): ScriptedModel {
  return (req) => {
    if (isJudgeRequest(req.messages)) {
      const instore = req.messages.some((m) => text(m).includes("instore_"));
      return think("Checking each rubric against the window.", vitaJudgeReply(req.messages, instore ? { unmet: ["rubric_0"] } : {}));
    }
    if (isUserSimulatorRequest(req.messages)) return think("I am the customer.", vitaUserLine(req.messages, ["I would like to order something nearby, what do you suggest?", "That is all, thank you. ###STOP###"]));
    if (req.tools?.length) {
      const delivery = req.tools.some((t) => t.function.name === "delivery_store_search_recommand");
      const answered = req.messages.some((m) => m.role === "tool");
      if (answered) return think("Summarise for the user.", "I found a few places for you. Shall I go on? Anything else?");
      return think("Search first.", delivery ? call("delivery_store_search_recommand", { keywords: "noodle" }) : call("instore_shop_search_recommend", { keywords: ["hotpot"] }));
    }
    // The fidelity probe: the rehearse role's prediction of the tool response.
    return think("Predicting the response.", '<execution_result>\n{"predicted": true}\n</execution_result>');
  };
}

async function finished(caller: Caller, runId: string, what: () => string) {
  return eventually(async () => {
    const r = await caller.runs.get({ id: runId });
    return r.status === "succeeded" || r.status === "failed" ? r : null;
  }, 240_000, `run to finish\n${what()}`);
}

async function vitaMetrics(runId: string) {
  const points = await prisma.metricPoint.findMany({ where: { runId, key: { startsWith: "val/vitabench/" } }, select: { key: true, value: true } });
  return Object.fromEntries(points.map((p) => [p.key, p.value]));
}

const evalConfig = (dataset: string, instanceIds: string[]): RunConfigInput => ({
  kind: "eval",
  policy: { node: "scripted", model: "scripted" },
  data: { dataset, instanceIds },
  trialsPerTask: 2,
  fidelityProbe: true,
  rollout: {
    paradigm: "environment",
    userSimulator: { node: "scripted", model: "scripted" },
    maxAssistantTurns: 300,
    maxUserTurns: 300,
    maxMicroSteps: 2000,
    promptBudgetTokens: 1_000_000,
    maxConcurrentRollouts: 4,
  },
  reward: { judge: { node: "scripted", model: "scripted" } },
  sampling: { evalAct: { temperature: 0, topP: 1, maxTokens: 512 }, evalRehearse: { temperature: 0, topP: 1, maxTokens: 256 } },
});

describe.skipIf(!shared)("VitaBench evaluation runs", () => {
  let member: TestUser;
  let node: VllmDouble;
  let worker: Child;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startVllmDouble({ model: "scripted", respond: scriptedVitaModel() });
    await prisma.node.create({ data: { name: "scripted", kind: "openai", baseUrl: node.url, settings: { openai: { maxConcurrency: 4 } } } });
    await markDoctorPassed(prisma, "scripted", ["scripted"]);
    worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, ENVACE_DATA_DIR: dataDir, ENVACE_HEARTBEAT_STALE_S: "2", WORKER_CONCURRENCY: "1" });
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await node?.close();
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("evaluates delivery and in-store through the worker, stores rubric verdicts with the judge's words, and fills Table 1's VitaBench group", async () => {
    const caller = await callerFor(member.headers);
    const delivery = await caller.runs.create({ name: "vita-delivery", config: evalConfig("vitabench:delivery/en", ["10711001", "10711002"]) });
    const instore = await caller.runs.create({ name: "vita-instore", config: evalConfig("vitabench:instore/en", ["10826004"]) });
    for (const run of [delivery, instore]) {
      const done = await finished(caller, run.id, () => worker.output());
      expect(done.error, worker.output()).toBeNull();
      expect(done.status).toBe("succeeded");
    }
    expect(node.rejected).toEqual([]);

    // Upstream's metrics: every delivery trial met every rubric; the in-store task failed its rubric_0 in both trials.
    expect(await vitaMetrics(delivery.id)).toMatchObject({ "val/vitabench/avg@2": 1, "val/vitabench/pass@2": 1, "val/vitabench/pass^2": 1, "val/vitabench/avg_reward": 1, "val/vitabench/tasks": 2, "val/vitabench/trials": 4 });
    const inst = await vitaMetrics(instore.id);
    expect(inst).toMatchObject({ "val/vitabench/avg@2": 0, "val/vitabench/pass@2": 0, "val/vitabench/tasks": 1, "val/vitabench/trials": 2 });
    expect(inst["val/vitabench/avg_partial"]).toBeGreaterThan(0.5);

    // The real delivery search answered with upstream's own text (test/fixtures/vitabench/calls.golden.jsonl: the same
    // call on task 10711001, made by upstream's code).
    const golden = readFileSync(new URL("../../test/fixtures/vitabench/calls.golden.jsonl", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { case: string; index: number; content: string })
      .find((g) => g.case === "delivery-en-0" && g.index === 3)!;
    const deliveryItems = (await caller.trajectories.list({ runId: delivery.id, limit: 50 })).items.filter((t) => t.instanceId === "vitabench:delivery/en/10711001");
    expect(deliveryItems).toHaveLength(2);
    for (const item of deliveryItems) {
      const { trajectory, turns } = await caller.trajectories.get({ id: item.id, turnsLimit: 200 });
      expect(trajectory).toMatchObject({ outcome: "success", reward: 1 });
      expect(turns.filter((t) => t.role === "environment").map((t) => t.realResponse)).toEqual([golden.content]);
    }

    const { items } = await caller.trajectories.list({ runId: instore.id, limit: 50 });
    expect(items).toHaveLength(2);
    for (const item of items) {
      const { trajectory, turns, verdicts } = await caller.trajectories.get({ id: item.id, turnsLimit: 200 });
      expect(trajectory).toMatchObject({ outcome: "failure", terminationReason: "user_stop", instanceId: "vitabench:instore/en/10826004", paradigm: "environment" });
      // The user simulator opened and closed; the real in-store search answered, the probe's prediction beside it.
      expect(turns[0]).toMatchObject({ role: "user", text: "I would like to order something nearby, what do you suggest?" });
      const env = turns.filter((t) => t.role === "environment");
      expect(env).toHaveLength(1);
      expect(env[0]!.realResponse).toMatch(/^Shop\(/);
      expect(env[0]!.rehearsedResponse).toBe('{"predicted": true}');
      expect(turns.at(-1)).toMatchObject({ role: "user", text: "That is all, thank you. ###STOP###" });
      // Each rubric's verdict, with the judge's justification and the window it came from, on the agent's step.
      const failed = verdicts.find((v) => v.itemId === "rubric_0")!;
      expect(failed).toMatchObject({ passed: false, analysis: { source: "judge", analysis: { justification: "not done (window 1)", window: "1 of 1 (messages 1–6)" } } });
      expect(failed.turnIndex).not.toBeNull();
      expect(verdicts.filter((v) => v.itemId !== "rubric_0").every((v) => v.passed)).toBe(true);
    }
    const logs = (await caller.runs.logs({ runId: instore.id, limit: 500 })).map((l) => l.message);
    expect(logs).toContainEqual(expect.stringMatching(/^evaluation: vitabench:instore\/en: avg@2 0\.000, pass@2 0\.000, pass\^2 0\.000, avg_partial 0\.\d+;/));
    expect(logs).toContainEqual(expect.stringMatching(/^task 10826004: 0\/2 passed, failing rubrics: rubric_0 "/));

    // The judge saw the trajectory in upstream's format, the user simulator its persona and the greeting.
    const judged = node.requests.find((r) => isJudgeRequest(r.messages))!;
    expect(text(judged.messages[1])).toMatch(/^\n# Input\n<window_content>\n\[1\] assistant: Hello, how can I help you\?\n\[2\] user: /);
    const asked = node.requests.find((r) => isUserSimulatorRequest(r.messages))!;
    expect(asked.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(text(asked.messages[1])).toBe("Hello, how can I help you?");

    // A report over both runs: Table 1's VitaBench group.
    const report = await caller.reports.create({ title: "VitaBench", runIds: [delivery.id, instore.id] });
    const { document } = await caller.reports.get({ id: report.id });
    const group = document.vitabench!;
    expect(group.rows).toHaveLength(1);
    const [row] = group.rows;
    expect(row!.label).toBe("scripted on scripted · English");
    expect(row!.cells.map((c) => [c.label, c.value])).toEqual([
      ["Cross", null],
      ["Deliv.", 100],
      ["Inst.", 0],
      ["OTA", null],
    ]);
    expect(row!.cells[0]!.note).toContain("cross_domain/tasks_en.json is not shipped with the product");
    expect(row!.avg).toBeNull();
    expect(row!.partialAvg).toBe(50);
    const md = (await caller.reports.export({ id: report.id, format: "md" })).content;
    expect(md).toContain("| scripted on scripted · English | — | 100.00 | 0.00 | — | — (50.00 partial) |");
  });
});
