/**
 * τ² airline, telecom and all three domains evaluated end to end against real Postgres, queried back
 * through the API the UI uses: policy AND user simulator are a scripted model on a registered
 * OpenAI-compatible node — the vLLM-like TEST DOUBLE (hermes tool parser, reasoning parser) serving the
 * gold agent and the gold user (test/doubles/tau2-gold.ts), the telecom user calling its phone's tools
 * through function calling — so the runs store the real tool responses, the user's own calls, pass^k per
 * domain, and a report over the runs fills the paper's τ² columns (Retail, Telecom, Airline, Avg; — where
 * a run did not evaluate a domain). A user-simulator node that the doctor has not seen call tools is
 * refused for telecom at launch.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { renderScenario } from "../../lib/tau2/prompts";
import { loadTasks, parseTau2InstanceId, tau2DataFiles, type Tau2Domain, type Tau2Task } from "../../lib/tau2/tasks";
import { passingReport, registerCheckedNode } from "../../test/fixtures/doctor-report";
import { asHermesText, goldAgentReply, goldUserReply } from "../../test/doubles/tau2-gold";
import { startVllmDouble, type ScriptedModel, type VllmDouble } from "../../test/doubles/vllm-openai";
import { callerFor, eventually, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import type { ChatMessage } from "../engine/io";
import { evalExecutor } from "./executors/eval";
import { RunWorker } from "./worker";

const databaseUrl = inject("databaseUrl");
const tasksOf = (domain: Tau2Domain) => loadTasks(tau2DataFiles(domain).tasks);
const TELECOM_TASKS = ["[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]", "[service_issue]break_apn_settings|overdue_bill_suspension|unseat_sim_card[PERSONA:Hard]"];
const AIRLINE_TASKS = ["11", "14"];
/** The tasks the runs evaluate (telecom tasks share scenarios: the user double is given only these). */
const byRef = new Map<string, Tau2Task>();
for (const d of ["retail", "airline", "telecom"] as const) {
  const wanted = d === "retail" ? ["0"] : d === "airline" ? AIRLINE_TASKS : TELECOM_TASKS;
  for (const t of tasksOf(d)) if (wanted.includes(t.id)) byRef.set(`${d}/${t.id}`, t);
}

/**
 * The scripted model: a user-simulator request has the scenario in its system prompt (the task is the one
 * whose rendered scenario it is); an agent request (function tools, no scenario) finds its task by the tag the gold user
 * writes ("[task <domain>/<id>]"); anything else is a rehearsal.
 */
function goldModel(): ScriptedModel {
  const tasks = [...byRef.entries()];
  return (req) => {
    const messages: ChatMessage[] = req.messages.map((m) => ({ role: m.role as ChatMessage["role"], content: typeof m.content === "string" ? m.content : "", ...(m.tool_calls ? { tool_calls: m.tool_calls as ChatMessage["tool_calls"] } : {}) }));
    const system = messages[0]?.content ?? "";
    if (system.includes("<scenario>")) {
      const hit = tasks.find(([, t]) => system.includes(`<scenario>\n${renderScenario(t)}\n</scenario>`));
      if (!hit) return "I do not know this scenario. ###STOP###";
      return asHermesText(goldUserReply(hit[1], messages, `[task ${hit[0]}]`));
    }
    if (req.tools?.length) {
      const ref = messages.map((m) => /\[task ([a-z]+)\/(.+?)\] (?:Please go on|Thanks)/.exec(m.content)).find(Boolean);
      const task = ref ? byRef.get(`${ref[1]}/${ref[2]}`) : undefined;
      if (!task) return "I cannot tell which task this is.";
      return asHermesText(goldAgentReply(task, messages));
    }
    return '<execution_result>\n{"predicted": true}\n</execution_result>';
  };
}

type Caller = Awaited<ReturnType<typeof callerFor>>;

async function finished(caller: Caller, runId: string) {
  return eventually(async () => {
    const r = await caller.runs.get({ id: runId });
    return r.status === "succeeded" || r.status === "failed" ? r : null;
  }, 240_000, "run to finish");
}

async function metricsOf(runId: string) {
  const points = await prisma.metricPoint.findMany({ where: { runId, key: { startsWith: "val/tau2/" } }, select: { key: true, value: true } });
  return Object.fromEntries(points.map((p) => [p.key, p.value]));
}

describe("tau2 airline and telecom evaluation runs", () => {
  let member: TestUser;
  let scripted: VllmDouble;
  let worker: RunWorker;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    scripted = await startVllmDouble({ model: "gold", respond: goldModel(), reasoningParser: null });
    await registerCheckedNode(prisma, "gold", ["gold"], { kind: "openai", baseUrl: scripted.url });
    // The product's executors, as worker/main.ts selects them (no test hook: the user simulator is the scripted node).
    worker = new RunWorker({ prisma, databaseUrl, concurrency: 1, logger: () => {}, selectExecutor: () => (ctx) => evalExecutor(ctx) });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop({ drain: false });
    await scripted?.close();
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  const evalConfig = (dataset: string, instanceIds: string[]): RunConfigInput => ({
    kind: "eval",
    policy: { node: "gold", model: "gold" },
    data: { dataset, split: "train", instanceIds },
    trialsPerTask: 2,
    rollout: { paradigm: "environment", userSimulator: { node: "gold", model: "gold" }, maxAssistantTurns: 40, maxUserTurns: 40, maxMicroSteps: 200 },
  });

  it("refuses telecom at launch when the user simulator's node has not passed the doctor's tool-calling check", async () => {
    const node = await registerCheckedNode(prisma, "no-tools", ["m"], { kind: "embedded" });
    const report = passingReport({ name: "no-tools", kind: "embedded", baseUrl: "http://127.0.0.1:9" }, "m");
    report.checks = report.checks.map((c) => (c.check === "tool-calling" ? { ...c, status: "skipped", reason: "not needed: a policy on the embedded node samples over the Tinker protocol", neededBy: [] } : c));
    await prisma.nodeDoctorReport.updateMany({ where: { nodeId: node.id }, data: { report: report as never } });
    const caller = await callerFor(member.headers);
    const config = { ...evalConfig("tau2:telecom", [TELECOM_TASKS[0]!]), rollout: { userSimulator: { node: "no-tools", model: "m" } } };
    const refused = await expectTrpcError(caller.runs.create({ name: "telecom-no-tools", config }), "BAD_REQUEST");
    expect((refused.cause as unknown as { fieldErrors: { path: string; message: string }[] }).fieldErrors).toEqual([
      {
        path: "config.rollout.userSimulator.node",
        message: expect.stringMatching(/^node "no-tools" \(user simulator, model "m"\) was not checked for tool calling by the node doctor \(not needed: .*\)\. tau2:telecom's user acts on its phone with tool calls/),
      },
    ]);
    // Airline's user has no tools: the same node is fine there.
    const airline = await caller.runs.create({ name: "airline-plain-user", config: { ...evalConfig("tau2:airline", [AIRLINE_TASKS[0]!]), rollout: { userSimulator: { node: "no-tools", model: "m" } } } }).catch((e) => e);
    expect(airline).not.toBeInstanceOf(Error);
    await caller.runs.cancel({ id: airline.id });
    // Unknown ids and a bare id under tau2:all are refused on their field.
    const bad = await expectTrpcError(caller.runs.create({ name: "x", config: evalConfig("tau2:all", ["14"]) }), "BAD_REQUEST");
    expect((bad.cause as unknown as { fieldErrors: { path: string; message: string }[] }).fieldErrors[0]).toMatchObject({ path: "config.data.instanceIds", message: expect.stringMatching(/tau2:all needs ids of the form tau2:<domain>\/<task id>/) });
  });

  it("runs airline and telecom to the gold end state, stores the user's own calls, and fills the report's τ² columns", async () => {
    const caller = await callerFor(member.headers);
    await prisma.run.updateMany({ where: { status: { in: ["queued", "running"] } }, data: { status: "cancelled" } });
    const airline = await caller.runs.create({ name: "airline", config: evalConfig("tau2:airline", AIRLINE_TASKS) });
    expect((await finished(caller, airline.id)).error).toBeNull();
    const telecom = await caller.runs.create({ name: "telecom", config: evalConfig("tau2:telecom", TELECOM_TASKS) });
    expect((await finished(caller, telecom.id)).error).toBeNull();
    const all = await caller.runs.create({ name: "all", config: { ...evalConfig("tau2:all", ["tau2:retail/0", `tau2:airline/${AIRLINE_TASKS[0]}`, `tau2:telecom/${TELECOM_TASKS[0]}`]), trialsPerTask: 1 } });
    expect((await finished(caller, all.id)).error).toBeNull();
    expect(scripted.rejected).toEqual([]);

    expect(await metricsOf(airline.id)).toMatchObject({ "val/tau2/pass^1": 1, "val/tau2/pass^2": 1, "val/tau2/airline/avg": 1, "val/tau2/airline/tasks": 2 });
    expect(await metricsOf(telecom.id)).toMatchObject({ "val/tau2/pass^2": 1, "val/tau2/telecom/avg": 1, "val/tau2/telecom/tasks": 2 });
    expect(await metricsOf(all.id)).toMatchObject({ "val/tau2/pass^1": 1, "val/tau2/retail/avg": 1, "val/tau2/airline/avg": 1, "val/tau2/telecom/avg": 1, "val/tau2/tasks": 3 });

    // The telecom trajectories: the user's calls on its phone, with the phone's real answers; the env assertions passed.
    const { items } = await caller.trajectories.list({ runId: telecom.id, limit: 50 });
    expect(items.map((t) => t.instanceId).sort()).toEqual(TELECOM_TASKS.flatMap((id) => [`tau2:telecom/${id}`, `tau2:telecom/${id}`]).sort());
    for (const item of items) {
      const { trajectory, turns, verdicts } = await caller.trajectories.get({ id: item.id, turnsLimit: 200 });
      expect(trajectory).toMatchObject({ outcome: "success", reward: 1, terminationReason: "user_stop" });
      const task = byRef.get(`telecom/${parseTau2InstanceId(trajectory.instanceId!, null)!.taskId}`)!;
      const userCalls = turns.filter((t) => t.role === "user_tool");
      expect(userCalls.map((t) => (t.toolCalls as { name: string }).name)).toEqual(task.evaluation_criteria!.actions!.filter((a) => a.requestor === "user").map((a) => a.name));
      expect(userCalls.every((t) => typeof t.realResponse === "string" && t.realResponse.length > 0)).toBe(true);
      expect(verdicts.filter((v) => v.itemId.startsWith("env_assertion_")).every((v) => v.passed)).toBe(true);
    }
    // The agent's calls went to the real airline tools.
    const air = (await caller.trajectories.list({ runId: airline.id, limit: 50 })).items;
    const one = await caller.trajectories.get({ id: air[0]!.id, turnsLimit: 200 });
    expect(one.turns.filter((t) => t.role === "environment").every((t) => t.realResponse && !t.realResponse.startsWith("Error"))).toBe(true);

    const { id } = await caller.reports.create({ title: "τ² runs", runIds: [airline.id, telecom.id, all.id] });
    const { document } = await caller.reports.get({ id });
    expect(document.tau2?.columns.map((c) => c.label)).toEqual(["Retail", "Telecom", "Airline", "Avg"]);
    const cells = (name: string) => {
      const row = document.tau2!.rows.find((r) => r.runName === name)!;
      return [row.cells.retail?.value ?? null, row.cells.telecom?.value ?? null, row.cells.airline?.value ?? null, row.avg];
    };
    expect(cells("airline")).toEqual([null, null, 100, null]);
    expect(cells("telecom")).toEqual([null, 100, null, null]);
    expect(cells("all")).toEqual([100, 100, 100, 100]);
    const md = await caller.reports.export({ id, format: "md" });
    expect(md.content).toContain("| Run | Retail | Telecom | Airline | Avg |");
    expect(md.content).toContain("| airline | — | — | 100.00 | — |");
    expect(md.content).toContain("| all | 100.00 | 100.00 | 100.00 | 100.00 |");
  });
});
