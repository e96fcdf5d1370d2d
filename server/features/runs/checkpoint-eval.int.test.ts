/**
 * Evaluating a training run's checkpoint, launched over REST against real Postgres: the checkpoint is
 * resolved and pinned (run id, step number) by the launch check, the run records it (lineage both ways:
 * the evaluation names its checkpoint, the training run lists its evaluations), a test-time comparison
 * pins every arm to the same step, and every bad reference is refused with 400 naming its field.
 */
import type { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../../contracts/run-config";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { startApiServer, type ApiServer } from "../../../test/api-server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { launchProblems } from "../../../lib/launch-check";
import { latestReport } from "../../../lib/node-health";

let server: ApiServer;
let member: TestUser;
let token: string;
let tinyRun: string;
let qwenRun: string;

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function api(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A training run as the worker leaves it: its config, and checkpoints at `steps` on `node`. */
async function trainingRun(name: string, policy: { node: string; model: string }, steps: number[]): Promise<string> {
  const config = { kind: "train", policy, schedule: { steps: 4, saveEvery: 2, evalEvery: 2 } };
  const run = await prisma.run.create({
    data: { name, kind: "train", status: "succeeded", config: config as Prisma.InputJsonValue, configVersion: 1, paradigm: "rehearse", policyNode: policy.node, totalSteps: 4, createdById: member.id },
    select: { id: true },
  });
  for (const step of steps) {
    await prisma.checkpoint.create({
      data: { runId: run.id, step, nodeName: policy.node, statePath: `tinker://m-${name}/weights/s${step}`, samplerPath: `tinker://m-${name}/sampler_weights/s${step}` },
    });
  }
  return run.id;
}

const evaluation = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: "eval",
  policy,
  data: { dataset: "builtin:shop", split: "test", instancesPerStep: 2 },
  rollout: { paradigm: "environment" },
  ...extra,
});

async function refused(config: unknown) {
  const res = await api("POST", "/runs", { name: "refused", config });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.fieldErrors as { path: string; message: string }[];
}

beforeAll(async () => {
  await resetDatabase();
  server = await startApiServer();
  member = await signUp("member");
  token = (await (await callerFor(member.headers)).tokens.create({ name: "ci" })).token;
  await registerCheckedNode(prisma, "embedded", ["tiny-gpt"]);
  await registerCheckedNode(prisma, "skyrl", ["Qwen/Qwen3-8B", "tiny-gpt"], { kind: "tinker" });
  await registerCheckedNode(prisma, "vllm", ["Qwen/Qwen3-8B", "tiny-gpt"], { kind: "openai" });
  await registerCheckedNode(prisma, "vllm-plain", ["Qwen/Qwen3-8B"], { kind: "openai" });
  await prisma.node.update({ where: { name: "vllm" }, data: { settings: { lora: { adapterDir: "/srv/adapters" } } } });
  tinyRun = await trainingRun("tiny-train", { node: "embedded", model: "tiny-gpt" }, [2, 4]);
  qwenRun = await trainingRun("qwen-train", { node: "skyrl", model: "Qwen/Qwen3-8B" }, [2]);
});
afterAll(async () => {
  await server?.close();
});

describe("evaluating a checkpoint", () => {
  it("resolves a run name and \"latest\", pins them in the stored config, and keeps the lineage both ways", async () => {
    const res = await api("POST", "/runs", { name: "eval latest", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: "tiny-train", step: "latest" } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.config.policy.checkpoint).toEqual({ run: tinyRun, step: 4 });
    expect(res.body.evaluatedCheckpoint).toMatchObject({ step: 4, runId: tinyRun, run: { name: "tiny-train" } });
    const stored = await prisma.run.findUniqueOrThrow({ where: { id: res.body.id }, select: { evaluatedCheckpoint: { select: { step: true, runId: true } } } });
    expect(stored.evaluatedCheckpoint).toEqual({ step: 4, runId: tinyRun });

    const byId = await api("POST", "/runs", { name: "eval step 2", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: tinyRun, step: 2 } }, { repeats: 2 }) });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body.evaluatedCheckpoint).toMatchObject({ step: 2 });

    const evaluations = await api("GET", `/runs/${tinyRun}/checkpoint-evaluations`);
    expect(evaluations.status).toBe(200);
    expect(evaluations.body.map((e: { name: string; step: number; dataset: string; repeats: number }) => [e.name, e.step, e.dataset, e.repeats])).toEqual([
      ["eval step 2", 2, "builtin:shop", 2],
      ["eval latest", 4, "builtin:shop", 1],
    ]);
    const checkpoints = await api("GET", `/runs/${tinyRun}/checkpoints`);
    expect(checkpoints.body.map((c: { step: number; evaluations: number; exportable: boolean }) => [c.step, c.evaluations, c.exportable])).toEqual([
      [4, 1, false],
      [2, 1, false],
    ]);
  });

  it("evaluates a Tinker server's checkpoint on a vLLM node that loads LoRA adapters", async () => {
    const res = await api("POST", "/runs", { name: "eval on vllm", config: evaluation({ node: "vllm", model: "Qwen/Qwen3-8B", checkpoint: { run: "qwen-train" } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.config.policy.checkpoint).toEqual({ run: qwenRun, step: 2 });
    expect((await api("GET", `/runs/${qwenRun}/checkpoints`)).body[0]).toMatchObject({ step: 2, exportable: true, evaluations: 1 });
  });

  it("refuses a bad checkpoint with 400 naming the field, and creates nothing", async () => {
    const before = await prisma.run.count();
    const tiny = (checkpoint: Record<string, unknown>, policy: Record<string, unknown> = {}) => evaluation({ node: "embedded", model: "tiny-gpt", checkpoint, ...policy });

    expect(await refused(tiny({ run: "no-such-run" }))).toEqual([{ path: "config.policy.checkpoint.run", message: 'no run "no-such-run": name a training run by its id or its name' }]);
    expect(await refused(tiny({ run: "tiny-train", step: 3 }))).toEqual([
      { path: "config.policy.checkpoint.step", message: 'run "tiny-train" has no checkpoint at step 3 (it has checkpoints at steps 2 and 4)' },
    ]);
    expect(await refused(tiny({ run: "tiny-train" }, { model: "Qwen/Qwen3-8B" }))).toContainEqual({
      path: "config.policy.model",
      message: 'the checkpoint was trained from "tiny-gpt"; set policy.model to "tiny-gpt" (it is "Qwen/Qwen3-8B")',
    });
    // On another node.
    expect(await refused(tiny({ run: "tiny-train" }, { node: "skyrl" }))).toEqual([
      {
        path: "config.policy.node",
        message: 'the checkpoint is on node "embedded"; a Tinker-compatible node samples only the checkpoints it holds: set policy.node to "embedded", or to an OpenAI-compatible node that loads LoRA adapters',
      },
    ]);
    expect(await refused(tiny({ run: "tiny-train" }, { node: "vllm" }))).toEqual([
      {
        path: "config.policy.node",
        message: 'the checkpoint is on node "embedded", the embedded node, whose checkpoints are full weights of its own model, not LoRA adapters: evaluate them on node "embedded"',
      },
    ]);
    expect(await refused(evaluation({ node: "vllm-plain", model: "Qwen/Qwen3-8B", checkpoint: { run: "qwen-train" } }))).toEqual([
      {
        path: "config.policy.node",
        message: 'the checkpoint is on node "skyrl"; node "vllm-plain" does not load LoRA adapters: set its lora.adapterDir (vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING, docs/GPU.md), or set policy.node to "skyrl"',
      },
    ]);
    // Not a training run, or a name two runs share.
    const evalRun = (await prisma.run.findFirstOrThrow({ where: { name: "eval latest" }, select: { id: true } })).id;
    expect(await refused(tiny({ run: evalRun }))).toEqual([{ path: "config.policy.checkpoint.run", message: 'run "eval latest" is an evaluation; checkpoints come from training runs' }]);
    const twin = await trainingRun("twin", { node: "embedded", model: "tiny-gpt" }, [2]);
    const twin2 = await trainingRun("twin", { node: "embedded", model: "tiny-gpt" }, [2]);
    const [ambiguous] = await refused(tiny({ run: "twin" }));
    expect(ambiguous!.path).toBe("config.policy.checkpoint.run");
    expect(ambiguous!.message).toMatch(/^2 runs are named "twin": name the training run by its id/);
    expect(ambiguous!.message).toContain(twin);
    expect(ambiguous!.message).toContain(twin2);
    // A training run cannot start from one (the schema says so).
    expect(await refused({ kind: "train", policy: { checkpoint: { run: "tiny-train" } } })).toEqual([
      { path: "config.policy.checkpoint", message: "a training run starts from the base model; evaluate a checkpoint with kind eval" },
    ]);
    expect(await refused({ kind: "train", repeats: 2 })).toEqual([{ path: "config.repeats", message: "repeats are independent passes of an evaluation run (kind eval)" }]);
    expect(await prisma.run.count()).toBe(before + 2); // the twins
  });

  it("refuses a deleted checkpoint (and \"latest\" when the latest was deleted), naming the ones left", async () => {
    const run = await trainingRun("pruned", { node: "embedded", model: "tiny-gpt" }, [2, 4]);
    await prisma.checkpoint.updateMany({ where: { runId: run, step: 4 }, data: { deletedAt: new Date(Date.UTC(2026, 11, 3)), deletedReason: 'missing on node "embedded"' } });
    const policy = (step: number | "latest") => evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: "pruned", step } });
    expect(await refused(policy("latest"))).toEqual([
      { path: "config.policy.checkpoint.step", message: 'the latest checkpoint of run "pruned" (step 4) was deleted on 2026-12-03 (missing on node "embedded"); it still has checkpoints at steps 2' },
    ]);
    expect(await refused(policy(4))).toEqual([
      { path: "config.policy.checkpoint.step", message: 'the checkpoint of run "pruned" at step 4 was deleted on 2026-12-03 (missing on node "embedded"); it still has checkpoints at steps 2' },
    ]);
    expect((await api("POST", "/runs", { name: "eval pruned 2", config: policy(2) })).status).toBe(200);
  });

  it("refuses a run the caller may not read", async () => {
    // Every team role reads every run (lib/permissions.ts mayReadRun); an account outside them may not.
    const parsed = parseRunConfig(evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: "tiny-train" } }));
    if (!parsed.ok) throw new Error("config");
    const deps = { prisma, doctorReport: (node: { id: string }, model: string) => latestReport(prisma, node.id, model) };
    expect(await launchProblems(parsed.config, { ...deps, actor: { id: member.id, role: "member" } })).toEqual([]);
    expect(await launchProblems(parsed.config, { ...deps, actor: { id: "someone", role: "suspended" } })).toEqual([
      { path: "policy.checkpoint.run", message: 'you may not read run "tiny-train" (runs are read by the team\'s signed-in accounts)' },
    ]);
  });

  it("a test-time comparison of a checkpoint pins every arm to the same step", async () => {
    const caller = await callerFor(member.headers);
    const launched = await caller.runs.launchTestTimeComparison({
      name: "ttc of a checkpoint",
      config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: "tiny-train", step: "latest" } }, { testTime: { enabled: true, attempts: 2 } }),
      benchmarks: [{ dataset: "builtin:shop" }],
    });
    const arms = await prisma.run.findMany({ where: { id: { in: launched.runs.map((r) => r.id) } }, select: { config: true, evaluatedCheckpoint: { select: { step: true, runId: true } } } });
    expect(arms).toHaveLength(3);
    for (const arm of arms) {
      expect(arm.evaluatedCheckpoint).toEqual({ step: 4, runId: tinyRun });
      expect((arm.config as { policy: { checkpoint: unknown } }).policy.checkpoint).toEqual({ run: tinyRun, step: 4 });
    }
    const report = await caller.reports.get({ id: launched.reportId });
    expect(report.document.testTime?.rows.map((r) => r.policy)).toEqual(expect.arrayContaining(['run "tiny-train" step 4 (tiny-gpt) on embedded']));
  });
});
